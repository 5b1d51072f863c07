import { errorEnvelopeSchema, errorResponses, jsonContent, pathParameter, ref } from '../http/openapi-parts.js';

/** `info.version` of the records backend's document. */
export const RECORDS_OPENAPI_VERSION = '1.0.0';

const auth = errorResponses({ 401: 'unauthorized: missing or invalid token', 403: 'forbidden: the required scope is absent' });
const common = errorResponses({ 500: 'internal_error', 503: 'unavailable: the records store or the key set does not answer' });
const bodyErrors = errorResponses({ 413: 'payload_too_large', 415: 'unsupported_media_type: not JSON', 422: 'unprocessable: a body of the wrong shape' });

function secured(summary: string, scope: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { summary: `${summary} (scope ${scope})`, security: [{ bearer: [scope] }], ...extra, responses: { ...responses, ...auth, ...common } };
}

const status = (values: string[]) => ({ type: 'object', required: ['status'], properties: { status: { enum: values }, reasons: { type: 'array', items: { type: 'string' } } } });

/** The records backend's OpenAPI 3.1 document (doc 03 part I, DECISIONS section 4). */
export function recordsOpenApi(serviceVersion: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'CE-RISE records storage backend', version: RECORDS_OPENAPI_VERSION, description: `service version ${serviceVersion}` },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Error: {
          ...errorEnvelopeSchema,
          properties: {
            ...errorEnvelopeSchema.properties,
            code: { enum: ['bad_request', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'conflict', 'payload_too_large', 'unsupported_media_type', 'unprocessable', 'unavailable', 'internal_error'] },
          },
        },
        Record: {
          type: 'object',
          required: ['id', 'model', 'version', 'payload'],
          properties: { id: { type: 'string' }, model: { type: 'string' }, version: { type: 'string' }, payload: { description: 'any JSON value' } },
        },
        Filter: { type: 'object', description: 'the query filter of the core service (where, sort, limit, offset)' },
      },
    },
    paths: {
      '/records': {
        post: secured('store a record once per idempotency key', 'records:write', {
          200: { description: 'stored (or replayed, with Idempotent-Replayed: true)', headers: { 'Idempotent-Replayed': { schema: { const: 'true' } } }, ...jsonContent({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } }) },
          ...bodyErrors,
          ...errorResponses({ 400: 'bad_request: malformed JSON or no Idempotency-Key', 409: 'conflict: the key was used for another request, or the id exists under another key' }),
        }, {
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, ...jsonContent(ref('Record')) },
        }),
      },
      '/records/{id}': {
        get: secured('a record the caller may read', 'records:read', {
          200: { description: 'the record', ...jsonContent(ref('Record')) },
          ...errorResponses({ 404: 'not_found: unknown, or not visible to the caller' }),
        }, { parameters: [pathParameter('id', 'record id')] }),
      },
      '/records/query': {
        post: secured('query the records the caller may read', 'records:read', {
          200: { description: 'matching records', ...jsonContent({ type: 'object', required: ['records'], properties: { records: { type: 'array', items: ref('Record') } } }) },
          ...bodyErrors,
          ...errorResponses({ 400: 'bad_request: malformed JSON or an invalid filter (details name the condition)' }),
        }, { requestBody: { required: true, ...jsonContent({ type: 'object', properties: { filter: ref('Filter') } }) } }),
      },
      '/health': { get: { summary: 'liveness (no authentication)', responses: { 200: { description: 'alive', ...jsonContent(status(['ok'])) } } } },
      '/ready': {
        get: {
          summary: 'readiness: the records store answers (no authentication)',
          responses: { 200: { description: 'ready', ...jsonContent(status(['ready'])) }, 503: { description: 'not ready', ...jsonContent(status(['not_ready'])) } },
        },
      },
      '/openapi.json': { get: { summary: 'this document (no authentication)', responses: { 200: { description: 'OpenAPI 3.1', ...jsonContent({ type: 'object' }) } } } },
    },
  };
}
