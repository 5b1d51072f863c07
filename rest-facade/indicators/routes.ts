import type { Facade } from '../facades.js';
import { WITHOUT_AUTHENTICATION } from '../openapi.js';
import { IndicatorComputeDocument, type IndicatorComputeMutation, IndicatorHealthDocument } from '../generated/operations.js';
import { jsonContent, ok, ref } from '../http/openapi-parts.js';
import { type FacadeResponse, operationRoute } from '../route-table.js';
import { computeVariables } from './compute-body.js';
import { indicatorErrors } from './errors.js';
import { INDICATOR_SCHEMAS } from './schemas.js';
import { PROJECT_VERSION } from '../../kernel/project.js';

const json = (body: unknown): FacadeResponse => ({ status: 200, body });

/** The indicator service (doc 02): each path is one GraphQL operation of indicators/operations.graphql. */
export const indicatorsFacade: Facade = {
  name: 'indicators',
  errors: indicatorErrors,
  openapi: {
    head: { title: 'Indicator computation service', version: PROJECT_VERSION, schemas: INDICATOR_SCHEMAS, errorSchema: ref('Error'), bearer: false },
    ...WITHOUT_AUTHENTICATION,
  },
  routes: (context) => [
    operationRoute({
      method: 'GET',
      path: '/health',
      operation: IndicatorHealthDocument,
      respond: ({ health: { indicators: h } }) =>
        json({
          status: h.status,
          model_family: h.modelFamily,
          validation_basis: h.validationBasis,
          default_testing_version: h.defaultTestingVersion,
          artifact_base_url_template: h.artifactBaseUrlTemplate,
          core_base_url: h.coreBaseUrl,
          http_timeout_secs: h.httpTimeoutSecs,
          bind_address: h.bindAddress,
          port: h.port,
          calculation_artifact_url_template: h.calculationArtifactUrlTemplate,
        }),
      openapi: { summary: 'service health and fixed identity', responses: ok('health', ref('Health')) },
    }),
    {
      method: 'GET',
      path: '/openapi.json',
      local: () => json(context.openapi()),
      openapi: { summary: 'this document', responses: ok('OpenAPI 3.1', { type: 'object' }) },
    },
    operationRoute({
      method: 'POST',
      path: '/compute',
      body: 'json',
      operation: IndicatorComputeDocument,
      variables: (request) => computeVariables(request.body),
      respond: ({ computeIndicators: c }) => json(computeResponse(c)),
      openapi: {
        summary: 'validate the payload through the core service, then compute the indicator scores',
        description: 'A bearer token in Authorization is forwarded to the core for the delegated validation. INVALID_REQUEST_BODY: details.problems lists each problem with its path.',
        requestBody: { required: true, ...jsonContent(ref('ComputeRequest')) },
        responses: { 200: { description: 'scores computed', ...jsonContent(ref('ComputeResponse')) } },
      },
      errors: [
        'INVALID_REQUEST_BODY',
        'CORE_UNAUTHORIZED',
        'MODEL_VERSION_NOT_FOUND',
        'CALCULATION_ARTIFACT_NOT_FOUND',
        'VALIDATION_FAILED',
        'UNKNOWN_INDICATOR_SPECIFICATION',
        'CORE_VALIDATION_ERROR',
        'CALCULATION_ARTIFACT_ERROR',
        'CALCULATION_ARTIFACT_VERSION_MISMATCH',
      ],
    }),
  ],
};

/** doc 02's compute response, field for field and in its order, from the graph's camelCase. */
function computeResponse(c: IndicatorComputeMutation['computeIndicators']) {
  const { artifacts: a, validation: v, result: r } = c;
  return {
    model_family: c.modelFamily,
    model_version: c.modelVersion,
    artifact_base_url: c.artifactBaseUrl,
    artifacts: { model_version: a.modelVersion, base_url: a.baseUrl, calculation_url: a.calculationUrl, shacl_url: a.shaclUrl, schema_url: a.schemaUrl, owl_url: a.owlUrl },
    payload: c.payload,
    validation: {
      basis: v.basis,
      source: v.source,
      validation_url: v.validationUrl,
      status: contractSpelling(v.status),
      passed: v.passed,
      finding_count: v.findingCount,
      findings_present: v.findingsPresent,
      raw_report: v.rawReport,
      details: v.details,
    },
    result: {
      status: contractSpelling(r.status),
      total_score: r.totalScore,
      parameter_scores: r.parameterScores.map((p) => ({
        parameter_id: p.parameterId,
        computed_score: p.computedScore,
        question_scores: p.questionScores.map((q) => ({ question_id: q.questionId, selected_answer_id: q.selectedAnswerId, answer_score: q.answerScore })),
      })),
      notes: r.notes,
    },
  };
}

/** The contract spells the graph's enum values (`VALIDATED_BY_CORE`) in lower case (`validated_by_core`). */
function contractSpelling<T extends string>(value: T): Lowercase<T> {
  return value.toLowerCase() as Lowercase<T>;
}
