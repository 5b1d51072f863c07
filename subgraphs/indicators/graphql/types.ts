import 'reflect-metadata';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Directive, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { healthType } from '../../../kernel/graphql/health-root.js';
import { FREE_FORM_JSON_WEIGHT, cost, listSize } from '../../../kernel/graphql/demand-control.js';
import type { ScoringResult } from '../domain/scoring.js';
import type { ValidationSection } from '../domain/validation-section.js';

/*
 * The domain objects are returned as they are: fields declared with `name` keep the domain's
 * snake_case property and show the camelCase name in the schema, so no resolver copies them.
 * The questionnaire's types (a published model's is 2,000 objects) use graphql-js's default
 * resolver (`simpleResolvers`): their fields are plain properties under their schema names, and
 * type-graphql's own per-field resolver (a middleware chain per field) was a tenth of an in-process
 * request for it (bench/PROFILE.md). A type that renames a field cannot be simple.
 */

/**
 * The questionnaire's list sizes for demand control, each per item of the level above: the published
 * 0.0.4 model's own figures (11 indicators; on average 5.8 parameters each, 5.1 questions per
 * parameter, 5.7 answers per question), rounded up. One version's questionnaire costs 2,850, every
 * version's (`modelVersions`, 10 assumed) 28,500.
 */
export const QUESTIONNAIRE_SIZES = { indicators: 11, parameters: 6, questions: 6, answers: 6 };

// The keys are the graph's names, the values the domain's strings: resolvers return domain objects unchanged.
export enum ValidationStatusGql {
  VALIDATED_BY_CORE = 'validated_by_core',
  VALIDATION_SKIPPED = 'validation_skipped',
}
registerEnumType(ValidationStatusGql, {
  name: 'IndicatorValidationStatus',
  description: 'Whether the assessment was validated before it was scored',
  valuesConfig: {
    VALIDATED_BY_CORE: { description: 'The model registry validated it against the model version (its report is `rawReport`)' },
    VALIDATION_SKIPPED: { description: 'The operator turned validation off for this service: the assessment was scored unvalidated' },
  },
});

export enum ResultStatusGql {
  COMPUTED = 'computed',
}
registerEnumType(ResultStatusGql, {
  name: 'IndicatorResultStatus',
  description: 'The state of a set of scores',
  valuesConfig: { COMPUTED: { description: 'Every parameter of the indicator was scored' } },
});

@ObjectType('AnswerOption', { description: 'One answer a question offers, with the score it gives', simpleResolvers: true })
export class AnswerOptionGql {
  @Field({ description: 'The id to send as `selectedAnswerId`' }) readonly id!: string;
  @Field(() => String, { nullable: true, description: 'The answer as shown to the person answering; null when the model version provides no text' })
  readonly text!: string | null;
  @Field(() => Float, { description: 'The score this answer gives the question, from 0 (worst) to 5 (best)' }) readonly score!: number;
}

@ObjectType('QuestionSpecification', { description: 'One question of a parameter, with the answers it offers', simpleResolvers: true })
export class QuestionSpecificationGql {
  @Field({ description: 'The id to send as `questionId`' }) readonly id!: string;
  @Field(() => String, { nullable: true, description: 'The question as shown to the person answering; null when the model version provides no text' })
  readonly text!: string | null;
  @Field(() => Float, { description: "The question's weight in its parameter's score" }) readonly weight!: number;
  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.answers }))
  @Field(() => [AnswerOptionGql], { description: 'The answers to choose from' })
  readonly answers!: readonly AnswerOptionGql[];
}

@ObjectType('ParameterSpecification', { description: 'One scored aspect of an indicator (a parameter), with its questions', simpleResolvers: true })
export class ParameterSpecificationGql {
  @Field({ description: 'The id to send as `parameterId`' }) readonly id!: string;
  @Field(() => String, { nullable: true, description: 'The parameter as shown to the person answering; null when the model version provides no name' })
  readonly name!: string | null;
  @Field(() => Float, { description: "The parameter's weight in the indicator's total score" }) readonly weight!: number;
  @Field(() => Float, { nullable: true, description: 'When set, the parameter always scores this value and has no questions to answer' })
  readonly fixedScore!: number | null;
  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.questions }))
  @Field(() => [QuestionSpecificationGql], { description: 'The questions to answer, in order; empty when `fixedScore` is set' })
  readonly questions!: readonly QuestionSpecificationGql[];
}

@ObjectType('IndicatorSpecification', { description: 'One indicator of a model version: the questionnaire to answer and how its answers are scored', simpleResolvers: true })
export class IndicatorSpecificationGql {
  @Field({ description: 'The id to send as `indicatorSpecificationId` when computing its scores' }) readonly id!: string;
  @Field(() => String, { nullable: true, description: 'What the indicator measures (for example `REcycle`, `REuse`); null when not given' })
  readonly indicatorType!: string | null;
  @Field(() => String, { nullable: true, description: 'The product category it applies to (for example `Battery`); null when not given' })
  readonly productCategory!: string | null;
  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.parameters }))
  @Field(() => [ParameterSpecificationGql], { description: 'Its parameters, in order' })
  readonly parameters!: readonly ParameterSpecificationGql[];
}

/*
 * The questionnaire as `ModelVersion.indicators` gives it: the types above with an `id` unique across
 * the graph (kernel/graphql/global-id.ts) and their local key under its own name, the name of the
 * input it goes to. The types above keep their `id`, a key unique only inside its parent, for the
 * clients of `indicatorSpecifications` until that field goes. Each is an entity by `nodeRef` (the
 * same id, hidden from clients): `node(id:)` hands the models subgraph's stubs of them over to this
 * subgraph (questionnaire.ts `questionnaireItem`), which alone knows whether the item exists.
 */
/** `key`: the local key, which repeats across parents and versions. */
const globalId = (key: string, repeats = 'indicators and versions') =>
  `Unique across the graph, where \`${key}\` repeats across ${repeats}: what a client cache keys it by and \`node(id:)\` takes back`;

@ObjectType('IndicatorAnswer', { description: 'One answer a question offers, with the score it gives', simpleResolvers: true })
@Directive('@key(fields: "nodeRef")')
export class IndicatorAnswerGql extends AnswerOptionGql {
  @Field(() => ID, { description: globalId('answerId') }) declare readonly id: string;
  @Directive('@inaccessible') @Field(() => ID) readonly nodeRef!: string;
  @Field({ description: 'Its key among the answers of its question: send it as `selectedAnswerId`' }) readonly answerId!: string;
}

@ObjectType('IndicatorQuestion', { description: 'One question of a parameter, with the answers it offers', simpleResolvers: true })
@Directive('@key(fields: "nodeRef")')
export class IndicatorQuestionGql extends QuestionSpecificationGql {
  @Field(() => ID, { description: globalId('questionId') }) declare readonly id: string;
  @Directive('@inaccessible') @Field(() => ID) readonly nodeRef!: string;
  @Field({ description: 'Its key among the questions of its parameter: send it as `questionId`' }) readonly questionId!: string;
  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.answers }))
  @Field(() => [IndicatorAnswerGql], { description: 'The answers to choose from' })
  declare readonly answers: readonly IndicatorAnswerGql[];
}

@ObjectType('IndicatorParameter', { description: 'One scored aspect of an indicator (a parameter), with its questions', simpleResolvers: true })
@Directive('@key(fields: "nodeRef")')
export class IndicatorParameterGql extends ParameterSpecificationGql {
  @Field(() => ID, { description: globalId('parameterId') }) declare readonly id: string;
  @Directive('@inaccessible') @Field(() => ID) readonly nodeRef!: string;
  @Field({ description: 'Its key among the parameters of its indicator: send it as `parameterId`' }) readonly parameterId!: string;
  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.questions }))
  @Field(() => [IndicatorQuestionGql], { description: 'The questions to answer, in order; empty when `fixedScore` is set' })
  declare readonly questions: readonly IndicatorQuestionGql[];
}

@ObjectType('Indicator', { description: 'One indicator of a model version: the questionnaire to answer and how its answers are scored', simpleResolvers: true })
@Directive('@key(fields: "nodeRef")')
export class IndicatorGql extends IndicatorSpecificationGql {
  @Field(() => ID, { description: globalId('indicatorSpecificationId', 'versions') }) declare readonly id: string;
  @Directive('@inaccessible') @Field(() => ID) readonly nodeRef!: string;
  @Field({ description: 'Its key among the indicators of its model version: send it as `indicatorSpecificationId` when computing its scores' })
  readonly indicatorSpecificationId!: string;
  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.parameters }))
  @Field(() => [IndicatorParameterGql], { description: 'Its parameters, in order' })
  declare readonly parameters: readonly IndicatorParameterGql[];
}

/** The models subgraph owns ModelVersion; this subgraph adds the questionnaire of its calculation artifact. */
@ObjectType('ModelVersion')
@Directive('@key(fields: "model version")')
export class ModelVersionGql {
  @Field() model!: string;
  @Field() version!: string;
}

/**
 * The models subgraph owns Record; this subgraph adds its indicator scores, from the fields the
 * gateway fetches there first (`@requires`), so it never reads the store.
 */
@ObjectType('Record')
@Directive('@key(fields: "id")')
export class RecordGql {
  @Field(() => ID) id!: string;
  @Directive('@external') @Field() model!: string;
  @Directive('@external') @Field() version!: string;
  @Directive('@external') @Field(() => GraphQLJSON, { nullable: true }) payload!: unknown;
}

@ObjectType('IndicatorArtifacts', { description: 'Where the published files of the model version used are' })
export class IndicatorArtifactsGql {
  @Field({ name: 'modelVersion', description: 'The model version they belong to' }) model_version!: string;
  @Field({ name: 'baseUrl', description: 'The folder of the files (ends with `/`)' }) base_url!: string;
  @Field({ name: 'calculationUrl', description: 'The calculation artifact: weights and answer scores' }) calculation_url!: string;
  @Field({ name: 'shaclUrl', description: 'The SHACL shapes' }) shacl_url!: string;
  @Field({ name: 'schemaUrl', description: 'The JSON Schema' }) schema_url!: string;
  @Field({ name: 'owlUrl', description: 'The OWL ontology' }) owl_url!: string;
}

@ObjectType('IndicatorValidation', { description: 'How the assessment was validated before it was scored' })
export class IndicatorValidationGql {
  @Field({ description: 'What it was validated against: always `shacl`' }) basis!: string;
  @Field({ description: 'The name of the service that validated it' }) source!: string;
  @Field({ name: 'validationUrl', description: 'The validation endpoint that was called' }) validation_url!: string;
  @Field(() => ValidationStatusGql, { description: 'Validated, or skipped by configuration' }) status!: ValidationSection['status'];
  @Field(() => Boolean, { nullable: true, description: "The validator's verdict; null when validation was skipped or the report gave no verdict" })
  passed!: boolean | null;
  @Field(() => Int, { name: 'findingCount', nullable: true, description: 'How many findings the report lists; null when validation was skipped' })
  finding_count!: number | null;
  @Field(() => Boolean, { name: 'findingsPresent', nullable: true, description: '`findingCount > 0`; null when validation was skipped' })
  findings_present!: boolean | null;
  @Directive(cost(FREE_FORM_JSON_WEIGHT))
  @Field(() => GraphQLJSONObject, { name: 'rawReport', nullable: true, description: "The validator's report, unchanged; null when validation was skipped" })
  raw_report!: Record<string, unknown> | null;
  @Field(() => [String], { description: 'The verdict and the first findings, one sentence each, for showing to a person' }) details!: string[];
}

@ObjectType('QuestionScore', { description: 'The score of one question of the indicator' })
export class QuestionScoreGql {
  @Field({ name: 'questionId', description: 'The question: its `IndicatorQuestion.questionId`' }) question_id!: string;
  @Field(() => String, { name: 'selectedAnswerId', nullable: true, description: 'The answer given, as given; null when none was' })
  selected_answer_id!: string | null;
  @Field(() => Float, { name: 'answerScore', description: "The answer's score; 0 for no answer or an answer the question does not offer" })
  answer_score!: number;
}

@ObjectType('ParameterScore', { description: 'The score of one parameter of the indicator' })
export class ParameterScoreGql {
  @Field({ name: 'parameterId', description: 'The parameter: its `IndicatorParameter.parameterId`' }) parameter_id!: string;
  @Field(() => Float, { name: 'computedScore', description: "Its questions' answer scores weighted by the question weights (0 when none is answered), or its fixed score" })
  computed_score!: number;
  @Field(() => [QuestionScoreGql], { name: 'questionScores', description: "One per question of the parameter, in the questionnaire's order; empty for a fixed score" })
  question_scores!: QuestionScoreGql[];
}

@ObjectType('IndicatorResult', { description: "An assessment's indicator scores" })
export class IndicatorResultGql {
  @Field(() => ResultStatusGql, { description: 'Always `COMPUTED`' }) status!: ScoringResult['status'];
  @Field(() => Float, { name: 'totalScore', description: 'The parameter scores weighted by the parameter weights, divided by 5; a parameter nobody answered counts 0' })
  total_score!: number;
  @Field(() => [ParameterScoreGql], { name: 'parameterScores', description: "One per parameter of the indicator, in the questionnaire's order" })
  parameter_scores!: ParameterScoreGql[];
  @Field(() => [String], { description: 'How the scores were computed, in words' }) notes!: string[];
}

@ObjectType('IndicatorComputation', { description: 'The result of `computeIndicators`: the assessment as scored, its validation and its scores' })
export class IndicatorComputationGql {
  @Field({ name: 'modelFamily', description: 'Always `re-indicators-specification`' }) model_family!: string;
  @Field({ name: 'modelVersion', description: 'The model version used' }) model_version!: string;
  @Field({ name: 'artifactBaseUrl', description: 'The folder of its published files (`artifacts.baseUrl`)' }) artifact_base_url!: string;
  @Field(() => IndicatorArtifactsGql, { description: 'Its published files' }) artifacts!: IndicatorArtifactsGql;
  @Directive(cost(FREE_FORM_JSON_WEIGHT))
  @Field(() => GraphQLJSONObject, {
    description: "The assessment in the model's JSON, as validated and scored, with `parameter_assessments` and `question_answers` defaulted to []",
  })
  payload!: Record<string, unknown>;
  @Field(() => IndicatorValidationGql, { description: 'How it was validated' }) validation!: IndicatorValidationGql;
  @Field(() => IndicatorResultGql, { description: 'Its scores' }) result!: IndicatorResultGql;
}

@ObjectType('IndicatorHealth', { description: 'The indicator service: liveness and configuration' })
export class IndicatorHealthGql {
  @Field({ description: 'Always `ok` when it answers' }) status!: string;
  @Field({ name: 'modelFamily', description: 'The model it scores: `re-indicators-specification`' }) model_family!: string;
  @Field({ name: 'validationBasis', description: 'What assessments are validated against: `shacl`' }) validation_basis!: string;
  @Field({ name: 'defaultTestingVersion', description: 'The model version used when a computation names none' }) default_testing_version!: string;
  @Field({ name: 'artifactBaseUrlTemplate', description: 'Where the published files of a version are, `{version}` standing for it' })
  artifact_base_url_template!: string;
  @Field({ name: 'coreBaseUrl', description: 'The model registry that validates assessments' }) core_base_url!: string;
  @Field(() => Int, { name: 'httpTimeoutSecs', description: 'How long it waits for the registry or a file, in seconds' }) http_timeout_secs!: number;
  @Field({ name: 'bindAddress', description: 'The address its REST port listens on' }) bind_address!: string;
  @Field(() => Int, { description: 'Its REST port' }) port!: number;
  @Field({ name: 'calculationArtifactUrlTemplate', description: 'Where the calculation artifact of a version is, `{version}` standing for it' })
  calculation_artifact_url_template!: string;
}

/** This subgraph's `Health`: every subgraph declares one, each with its own part. */
export const HealthGql = healthType();
