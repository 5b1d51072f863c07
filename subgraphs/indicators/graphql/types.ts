import 'reflect-metadata';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Directive, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
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

// Enum values keep the contract's spelling (doc 02's named values).
export enum ValidationStatusGql {
  validated_by_core = 'validated_by_core',
  validation_skipped = 'validation_skipped',
}
registerEnumType(ValidationStatusGql, { name: 'IndicatorValidationStatus' });

export enum ResultStatusGql {
  computed = 'computed',
}
registerEnumType(ResultStatusGql, { name: 'IndicatorResultStatus' });

@ObjectType('AnswerOption', { description: 'One answer a question offers, with its score', simpleResolvers: true })
export class AnswerOptionGql {
  @Field() readonly id!: string;
  @Field(() => String, { nullable: true, description: 'Null when the calculation artifact carries no text' }) readonly text!: string | null;
  @Field(() => Float) readonly score!: number;
}

@ObjectType('QuestionSpecification', { simpleResolvers: true })
export class QuestionSpecificationGql {
  @Field() readonly id!: string;
  @Field(() => String, { nullable: true, description: 'Null when the calculation artifact carries no text' }) readonly text!: string | null;
  @Field(() => Float) readonly weight!: number;
  @Field(() => [AnswerOptionGql]) readonly answers!: readonly AnswerOptionGql[];
}

@ObjectType('ParameterSpecification', { simpleResolvers: true })
export class ParameterSpecificationGql {
  @Field() readonly id!: string;
  @Field(() => String, { nullable: true, description: 'Null when the calculation artifact carries no name' }) readonly name!: string | null;
  @Field(() => Float) readonly weight!: number;
  @Field(() => Float, { nullable: true, description: 'Set: the parameter scores this value and has no questions' }) readonly fixedScore!: number | null;
  @Field(() => [QuestionSpecificationGql]) readonly questions!: readonly QuestionSpecificationGql[];
}

@ObjectType('IndicatorSpecification', { description: 'One indicator of calculation.json: the questionnaire to answer and how it is scored', simpleResolvers: true })
export class IndicatorSpecificationGql {
  @Field({ description: 'The `indicator_specification_id` of a compute request' }) readonly id!: string;
  @Field(() => String, { nullable: true }) readonly indicatorType!: string | null;
  @Field(() => String, { nullable: true }) readonly productCategory!: string | null;
  @Field(() => [ParameterSpecificationGql]) readonly parameters!: readonly ParameterSpecificationGql[];
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

@ObjectType('IndicatorArtifacts')
export class IndicatorArtifactsGql {
  @Field({ name: 'modelVersion' }) model_version!: string;
  @Field({ name: 'baseUrl' }) base_url!: string;
  @Field({ name: 'calculationUrl' }) calculation_url!: string;
  @Field({ name: 'shaclUrl' }) shacl_url!: string;
  @Field({ name: 'schemaUrl' }) schema_url!: string;
  @Field({ name: 'owlUrl' }) owl_url!: string;
}

@ObjectType('IndicatorValidation', { description: "This service's view of the core's validation report" })
export class IndicatorValidationGql {
  @Field() basis!: string;
  @Field({ description: "The core service's name" }) source!: string;
  @Field({ name: 'validationUrl' }) validation_url!: string;
  @Field(() => ValidationStatusGql) status!: ValidationSection['status'];
  @Field(() => Boolean, { nullable: true }) passed!: boolean | null;
  @Field(() => Int, { name: 'findingCount', nullable: true }) finding_count!: number | null;
  @Field(() => Boolean, { name: 'findingsPresent', nullable: true }) findings_present!: boolean | null;
  @Field(() => GraphQLJSONObject, { name: 'rawReport', nullable: true, description: 'The core report, unchanged' }) raw_report!: Record<string, unknown> | null;
  @Field(() => [String]) details!: string[];
}

@ObjectType('QuestionScore')
export class QuestionScoreGql {
  @Field({ name: 'questionId' }) question_id!: string;
  @Field(() => String, { name: 'selectedAnswerId', nullable: true }) selected_answer_id!: string | null;
  @Field(() => Float, { name: 'answerScore', nullable: true }) answer_score!: number | null;
}

@ObjectType('ParameterScore')
export class ParameterScoreGql {
  @Field({ name: 'parameterId' }) parameter_id!: string;
  @Field(() => Float, { name: 'computedScore', nullable: true }) computed_score!: number | null;
  @Field(() => [QuestionScoreGql], { name: 'questionScores' }) question_scores!: QuestionScoreGql[];
}

@ObjectType('IndicatorResult')
export class IndicatorResultGql {
  @Field(() => ResultStatusGql) status!: ScoringResult['status'];
  @Field(() => Float, { name: 'totalScore', nullable: true }) total_score!: number | null;
  @Field(() => [ParameterScoreGql], { name: 'parameterScores' }) parameter_scores!: ParameterScoreGql[];
  @Field(() => [String]) notes!: string[];
}

@ObjectType('IndicatorComputation', { description: 'doc 02 compute response' })
export class IndicatorComputationGql {
  @Field({ name: 'modelFamily' }) model_family!: string;
  @Field({ name: 'modelVersion' }) model_version!: string;
  @Field({ name: 'artifactBaseUrl' }) artifact_base_url!: string;
  @Field(() => IndicatorArtifactsGql) artifacts!: IndicatorArtifactsGql;
  @Field(() => GraphQLJSONObject, { description: 'The assessment payload as received, arrays defaulted to []' }) payload!: Record<string, unknown>;
  @Field(() => IndicatorValidationGql) validation!: IndicatorValidationGql;
  @Field(() => IndicatorResultGql) result!: IndicatorResultGql;
}

@ObjectType('IndicatorHealth', { description: 'doc 02 health response' })
export class IndicatorHealthGql {
  @Field() status!: string;
  @Field({ name: 'modelFamily' }) model_family!: string;
  @Field({ name: 'validationBasis' }) validation_basis!: string;
  @Field({ name: 'defaultTestingVersion' }) default_testing_version!: string;
  @Field({ name: 'artifactBaseUrlTemplate' }) artifact_base_url_template!: string;
  @Field({ name: 'coreBaseUrl' }) core_base_url!: string;
  @Field(() => Int, { name: 'httpTimeoutSecs' }) http_timeout_secs!: number;
  @Field({ name: 'bindAddress' }) bind_address!: string;
  @Field(() => Int) port!: number;
  @Field({ name: 'calculationArtifactUrlTemplate' }) calculation_artifact_url_template!: string;
}
