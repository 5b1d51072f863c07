import 'reflect-metadata';
import { GraphQLDateTime, GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType } from 'type-graphql';
import { DomainError } from '../../../kernel/errors.js';
import { DEFAULT_MODEL_VERSION } from '../domain/compute-request.js';

/*
 * The assessment as input objects, for clients that build it field by field. The resolver turns it
 * into the model's own JSON (snake_case), which is what the model registry validates and what is
 * scored.
 */

@InputType('QuestionAnswerInput', { description: 'The answer given to one question' })
export class QuestionAnswerInputGql {
  @Field({ description: 'The question answered: its `IndicatorQuestion.questionId`' }) questionId!: string;
  @Field(() => String, { nullable: true, description: 'The answer chosen: its `IndicatorAnswer.answerId`; null or left out when not answered, which scores 0' })
  selectedAnswerId?: string | null;
  @Field(() => String, { nullable: true, description: 'A remark on the answer, for model versions that define one (the published ones do; the bundled sample does not)' })
  notes?: string | null;
}

@InputType('ParameterAssessmentInput', { description: 'The answers given for one parameter' })
export class ParameterAssessmentInputGql {
  @Field({ description: 'The parameter: its `IndicatorParameter.parameterId`' }) parameterId!: string;
  @Field(() => [QuestionAnswerInputGql], { nullable: true, description: 'One answer per question; left out or null: none' })
  questionAnswers?: QuestionAnswerInputGql[] | null;
}

@InputType('ProductInfoInput', { description: 'The product that was assessed' })
export class ProductInfoInputGql {
  @Field({ description: 'Its category, one the model version lists (for example `Battery`)' }) productCategory!: string;
  @Field(() => String, { nullable: true, description: 'Its manufacturer' }) manufacturer?: string | null;
  @Field(() => String, { nullable: true, description: 'Its model name, for model versions that define one (the published ones do)' }) model?: string | null;
  @Field(() => String, { nullable: true, description: 'Its serial number, for model versions that define one (the published ones do)' })
  serialNumber?: string | null;
}

@InputType('AssessmentInput', {
  description:
    'One product assessed against one indicator. Which of `id`, `timestamp` and `productInfo` are required depends on the model version ' +
    '(the bundled sample requires all three): validation reports a missing one as VALIDATION_FAILED',
})
export class AssessmentInputGql {
  @Field(() => String, { nullable: true, description: 'The id of the assessment' }) id?: string | null;
  @Field(() => GraphQLDateTime, { nullable: true, description: 'When the assessment was made; sent to the model in UTC with milliseconds' })
  timestamp?: Date | null;
  @Field({ description: 'The indicator answered: its `Indicator.indicatorSpecificationId`' }) indicatorSpecificationId!: string;
  @Field(() => ProductInfoInputGql, { nullable: true, description: 'The product assessed' }) productInfo?: ProductInfoInputGql | null;
  @Field(() => [ParameterAssessmentInputGql], { nullable: true, description: 'The answers, grouped by parameter; left out or null: none' })
  parameterAssessments?: ParameterAssessmentInputGql[] | null;
}

@InputType('ComputeIndicatorsInput', {
  description:
    'An answered questionnaire to validate and score. Give exactly one of `assessment` (typed fields) and `payload` (the same assessment in the ' +
    "model's own JSON): both is INVALID_REQUEST_BODY, and so is neither (its problem says `$.payload` is required)",
})
export class ComputeIndicatorsInputGql {
  @Field(() => String, {
    nullable: true,
    defaultValue: DEFAULT_MODEL_VERSION,
    description: 'The version of `re-indicators-specification` to validate and score with; null: the default. A version with no published files is CALCULATION_ARTIFACT_NOT_FOUND',
  })
  modelVersion?: string | null;
  @Field(() => AssessmentInputGql, { nullable: true, description: 'The assessment, field by field' }) assessment?: AssessmentInputGql | null;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      "The assessment as the model's own JSON (snake_case, as in a stored record or a file), validated exactly as given and echoed with its extra keys. " +
      'Problems of its shape are INVALID_REQUEST_BODY, each located in `details.problems` by a path such as `$.payload.parameter_assessments[0]`',
  })
  payload?: Record<string, unknown> | null;
}

/** The compute request the indicator service reads: `{model_version, payload}`, the payload in the model's JSON. */
export interface ComputeRequestBody {
  model_version: string | null | undefined;
  payload: Record<string, unknown> | undefined;
}

/**
 * The request for the domain. Neither an assessment nor a payload leaves the payload out, which the
 * domain reports like a request without one (as it does for the REST body the facade passes on).
 */
export function computeRequestOf({ modelVersion, assessment, payload }: ComputeIndicatorsInputGql): ComputeRequestBody {
  if (assessment && payload) {
    throw new DomainError('INVALID_REQUEST_BODY', 'give either `assessment` or `payload`, not both', {
      problems: [{ path: '$', message: 'must have either assessment or payload, not both' }],
    });
  }
  return { model_version: modelVersion, payload: payload ?? (assessment ? assessmentPayload(assessment) : undefined) };
}

function assessmentPayload(assessment: AssessmentInputGql): Record<string, unknown> {
  return present({
    id: assessment.id,
    timestamp: assessment.timestamp && assessment.timestamp.toISOString(),
    product_info: assessment.productInfo && productInfo(assessment.productInfo),
    indicator_specification_id: assessment.indicatorSpecificationId,
    parameter_assessments: assessment.parameterAssessments?.map(parameterAssessment),
  });
}

function productInfo(product: ProductInfoInputGql): Record<string, unknown> {
  return present({ product_category: product.productCategory, manufacturer: product.manufacturer, model: product.model, serial_number: product.serialNumber });
}

function parameterAssessment(parameter: ParameterAssessmentInputGql): Record<string, unknown> {
  return present({ parameter_id: parameter.parameterId, question_answers: parameter.questionAnswers?.map(questionAnswer) });
}

function questionAnswer(answer: QuestionAnswerInputGql): Record<string, unknown> {
  return present({ question_id: answer.questionId, selected_answer_id: answer.selectedAnswerId, notes: answer.notes });
}

/**
 * The fields the client gave: a left-out field stays out of the model's JSON and a null stays null,
 * except a null list, which is left out (`?.map`): the model allows a null list, the scorer only a missing one.
 */
function present(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
