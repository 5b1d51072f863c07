import { errorEnvelopeSchema, errorResponses, jsonContent, pathParameter, ref } from '../http/openapi-parts.js';

/** `info.version` of the served document, reported by `/admin/version` as `openapi_version`. */
export const CORE_OPENAPI_VERSION = '1.0.0';

const modelParameters = [pathParameter('model', 'model id'), pathParameter('version', 'model version')];
const auth = errorResponses({ 401: 'missing or invalid credentials', 403: 'identity not allowed', 503: 'key set unreachable' });
const common = errorResponses({ 500: 'internal error' });
const modelNotFound = errorResponses({ 404: 'MODEL_NOT_FOUND (or ARTIFACT_NOT_FOUND for artifacts)' });
const bodyErrors = errorResponses({ 400: 'malformed body', 413: 'body too large', 415: 'not JSON' });

function operation(summary: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { summary, security: [{ bearer: [] }], ...extra, responses: { ...responses, ...auth, ...common } };
}

function ok(description: string, schema: unknown) {
  return { 200: { description, ...jsonContent(schema) } };
}

function artifact(kind: string, mediaType: string) {
  return {
    get: operation(`raw ${kind} artifact, byte for byte as fetched`, {
      200: { description: `the ${kind} artifact`, headers: { ETag: { schema: { type: 'string' } } }, content: { [mediaType]: { schema: { type: 'string' } } } },
      304: { description: 'not modified (If-None-Match)' },
      ...modelNotFound,
      ...errorResponses({ 502: 'REGISTRY_ERROR: the artifact failed to fetch' }),
    }, { parameters: [...modelParameters, { name: 'If-None-Match', in: 'header', schema: { type: 'string' } }] }),
  };
}

/** The OpenAPI 3.1 document of the core facade: every path of doc 01. */
export function coreOpenApi(serviceVersion: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'CE-RISE core model validation and record service', version: CORE_OPENAPI_VERSION, description: `service version ${serviceVersion}` },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Error: errorEnvelopeSchema,
        PayloadRequest: { type: 'object', required: ['payload'], properties: { payload: { type: 'object' } } },
        Violation: {
          type: 'object',
          required: ['path', 'message', 'severity'],
          properties: { path: { type: 'string' }, message: { type: 'string' }, severity: { enum: ['Error', 'Warning', 'Info'] }, constraint: { type: 'string' }, value: {} },
        },
        ValidationReport: {
          type: 'object',
          required: ['passed', 'results'],
          properties: {
            passed: { type: 'boolean' },
            results: {
              type: 'array',
              items: {
                type: 'object',
                required: ['kind', 'passed', 'violations'],
                properties: { kind: { enum: ['JsonSchema', 'Shacl', 'Owl'] }, passed: { type: 'boolean' }, violations: { type: 'array', items: ref('Violation') } },
              },
            },
          },
        },
        Record: {
          type: 'object',
          required: ['id', 'model', 'version', 'payload'],
          properties: { id: { type: 'string' }, model: { type: 'string' }, version: { type: 'string' }, payload: { type: 'object' } },
        },
        Filter: {
          type: 'object',
          properties: {
            where: { type: 'array', items: { type: 'object', required: ['field', 'op'], properties: { field: { type: 'string' }, op: { enum: ['eq', 'ne', 'in', 'contains', 'exists', 'gt', 'gte', 'lt', 'lte'] }, value: {} } } },
            sort: { type: 'array', items: { type: 'object', required: ['field'], properties: { field: { type: 'string' }, direction: { enum: ['asc', 'desc'] } } } },
            limit: { type: 'integer', minimum: 0, maximum: 1000, default: 100 },
            offset: { type: 'integer', minimum: 0, default: 0 },
          },
        },
        RegistryError: { type: 'object', properties: { model: { type: 'string' }, version: { type: 'string' }, artifact: { type: 'string' }, message: { type: 'string' } } },
      },
    },
    paths: {
      '/models/{model}/versions/{version}:validate': {
        post: operation('validate a payload (200 with passed:false for an invalid payload)', { ...ok('validation report', ref('ValidationReport')), ...modelNotFound, ...bodyErrors }, {
          parameters: modelParameters,
          requestBody: { required: true, ...jsonContent(ref('PayloadRequest')) },
        }),
      },
      '/models/{model}/versions/{version}:create': {
        post: operation('create a record', {
          200: {
            description: 'the record (also for a replay, with Idempotent-Replayed: true)',
            headers: { 'Idempotent-Replayed': { description: 'present on a replay', schema: { const: 'true' } } },
            ...jsonContent(ref('Record')),
          },
          ...modelNotFound,
          ...bodyErrors,
          ...errorResponses({
            400: 'BAD_REQUEST (malformed body) or MISSING_IDEMPOTENCY_KEY',
            409: 'IDEMPOTENCY_CONFLICT or RECORD_CONFLICT',
            422: 'VALIDATION_FAILED (details = the report)',
            502: 'STORE_ERROR',
          }),
        }, {
          parameters: [...modelParameters, { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, ...jsonContent(ref('PayloadRequest')) },
        }),
      },
      '/models/{model}/versions/{version}:query': {
        post: operation('query records of this model version', {
          ...ok('matching records', { type: 'object', properties: { records: { type: 'array', items: ref('Record') } } }),
          ...modelNotFound,
          ...bodyErrors,
          ...errorResponses({ 502: 'STORE_ERROR' }),
        }, { parameters: modelParameters, requestBody: jsonContent({ type: 'object', properties: { filter: ref('Filter') } }) }),
      },
      '/models': {
        get: operation('list the models', ok('models sorted by id, then version', {
          type: 'object',
          properties: { models: { type: 'array', items: { type: 'object', required: ['id', 'version'], properties: { id: { type: 'string' }, version: { type: 'string' }, label: { type: 'string' } } } } },
        })),
      },
      '/models/{model}/versions/{version}/schema': artifact('JSON Schema', 'application/schema+json'),
      '/models/{model}/versions/{version}/shacl': artifact('SHACL', 'text/turtle'),
      '/models/{model}/versions/{version}/owl': artifact('OWL', 'text/turtle'),
      '/openapi.json': { get: operation('this document', ok('OpenAPI 3.1 document', { type: 'object' })) },
      '/admin/health': {
        get: { summary: 'liveness probe (no authentication)', responses: ok('alive', { type: 'object', properties: { status: { const: 'ok' }, uptime_seconds: { type: 'integer' } } }) },
      },
      '/admin/version': {
        get: operation('service and OpenAPI version', ok('version info', { type: 'object', properties: { service: { type: 'string' }, service_version: { type: 'string' }, openapi_version: { type: 'string' } } })),
      },
      '/admin/models/count': { get: operation('number of indexed models', ok('model count', { type: 'object', properties: { models_count: { type: 'integer' } } })) },
      '/admin/ready': {
        get: operation('readiness probe', {
          ...ok('ready', { type: 'object', properties: { status: { const: 'ready' }, models_available: { type: 'integer' }, store: { const: 'ok' } } }),
          503: { description: 'not ready', ...jsonContent({ type: 'object', properties: { status: { const: 'not_ready' }, reasons: { type: 'array', items: { type: 'string' } } } }) },
        }),
      },
      '/admin/status': { get: operation('runtime status', ok('status', { type: 'object' })) },
      '/admin/metrics': {
        get: operation('Prometheus metrics when METRICS_ENABLED=true', {
          200: { description: 'metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errorResponses({ 404: 'metrics disabled' }),
        }),
      },
      '/admin/registry/refresh': {
        post: operation('reload the catalog and artifacts', {
          ...ok('refresh report', { type: 'object', properties: { refreshed_at: { type: 'string', format: 'date-time' }, models_found: { type: 'integer' }, errors: { type: 'array', items: ref('RegistryError') } } }),
          ...errorResponses({ 502: 'REGISTRY_ERROR: the catalog could not be loaded; the previous index stays' }),
        }),
      },
    },
  };
}
