import { errorEnvelopeSchema, errorResponses, jsonContent, ref } from '../http/openapi-parts.js';

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

const schemas = {
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

/** The indicator service's OpenAPI 3.1 document: doc 02's three paths. */
export function indicatorOpenApi(version: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Indicator computation service', version },
    components: { schemas },
    paths: {
      '/health': { get: { summary: 'service health and fixed identity', responses: { 200: { description: 'health', ...jsonContent(ref('Health')) } } } },
      '/openapi.json': { get: { summary: 'this document', responses: { 200: { description: 'OpenAPI 3.1', ...jsonContent({ type: 'object' }) } } } },
      '/compute': {
        post: {
          summary: 'validate the payload through the core service, then compute the indicator scores',
          description: 'A bearer token in Authorization is forwarded to the core for the delegated validation.',
          requestBody: { required: true, ...jsonContent(ref('ComputeRequest')) },
          responses: {
            200: { description: 'scores computed', ...jsonContent(ref('ComputeResponse')) },
            ...errorResponses({
              400: 'INVALID_REQUEST_BODY: details.problems lists each problem with its path',
              401: 'CORE_UNAUTHORIZED: the core rejected the delegated validation',
              404: 'MODEL_VERSION_NOT_FOUND (the core does not know the version) or CALCULATION_ARTIFACT_NOT_FOUND',
              413: 'PAYLOAD_TOO_LARGE',
              415: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json',
              422: 'VALIDATION_FAILED (details: the validation section) or UNKNOWN_INDICATOR_SPECIFICATION',
              500: 'INTERNAL_ERROR',
              502: 'CORE_VALIDATION_ERROR, CALCULATION_ARTIFACT_ERROR or CALCULATION_ARTIFACT_VERSION_MISMATCH',
            }),
          },
        },
      },
    },
  };
}
