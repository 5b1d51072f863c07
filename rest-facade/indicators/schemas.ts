import { errorEnvelopeSchema, ref } from '../http/openapi-parts.js';

const string = { type: 'string' };
const nullable = (type: string) => ({ type: [type, 'null'] });
const strings = { type: 'array', items: string };

/** A closed object: every listed property is required (the responses always carry them all). */
function record(properties: Record<string, unknown>) {
  return { type: 'object', required: Object.keys(properties), properties };
}

const questionAnswer = {
  type: 'object',
  required: ['question_id', 'selected_answer_id'],
  properties: { question_id: string, selected_answer_id: nullable('string') },
};

const parameterAssessment = {
  type: 'object',
  required: ['parameter_id'],
  properties: { parameter_id: string, question_answers: { type: 'array', items: questionAnswer, default: [] } },
};

/** The component schemas of the indicator service's OpenAPI document (doc 02, DECISIONS section 5). */
export const INDICATOR_SCHEMAS = {
  Error: errorEnvelopeSchema,
  ComputeRequest: {
    type: 'object',
    required: ['payload'],
    properties: {
      model_version: { ...nullable('string'), default: '0.0.4', description: 'model version of re-indicators-specification' },
      payload: {
        type: 'object',
        required: ['indicator_specification_id'],
        properties: { indicator_specification_id: string, parameter_assessments: { type: 'array', items: parameterAssessment, default: [] } },
      },
    },
  },
  ComputeResponse: record({
    model_family: { const: 're-indicators-specification' },
    model_version: string,
    artifact_base_url: string,
    artifacts: record({ model_version: string, base_url: string, calculation_url: string, shacl_url: string, schema_url: string, owl_url: string }),
    payload: { type: 'object', description: 'the assessment payload as received, arrays defaulted to []' },
    validation: ref('Validation'),
    result: record({
      status: { const: 'computed' },
      total_score: nullable('number'),
      parameter_scores: {
        type: 'array',
        items: record({
          parameter_id: string,
          computed_score: nullable('number'),
          question_scores: { type: 'array', items: record({ question_id: string, selected_answer_id: nullable('string'), answer_score: nullable('number') }) },
        }),
      },
      notes: strings,
    }),
  }),
  Validation: record({
    basis: { const: 'shacl' },
    source: { type: 'string', description: "the core service's name" },
    validation_url: string,
    status: { enum: ['validated_by_core', 'validation_skipped'] },
    passed: nullable('boolean'),
    finding_count: nullable('integer'),
    findings_present: nullable('boolean'),
    raw_report: { ...nullable('object'), description: 'the core validation report, unchanged' },
    details: strings,
  }),
  Health: record({
    status: { const: 'ok' },
    model_family: string,
    validation_basis: { const: 'shacl' },
    default_testing_version: string,
    artifact_base_url_template: string,
    core_base_url: string,
    http_timeout_secs: { type: 'integer' },
    bind_address: string,
    port: { type: 'integer' },
    calculation_artifact_url_template: string,
  }),
};
