import { DomainError } from '../../kernel/errors.js';
import type { Facade } from '../facades.js';
import { RecordsGetDocument, RecordsHealthDocument, RecordsQueryDocument, RecordsReadinessDocument, RecordsStoreDocument } from '../generated/operations.js';
import { errorEnvelopeSchema, jsonContent, ok, pathParameter, ref } from '../http/openapi-parts.js';
import { replayHeaders } from '../http/envelopes.js';
import { type FacadeResponse, operationRoute } from '../route-table.js';
import { RECORDS_CODES, recordsErrors } from './errors.js';

/** `info.version` of the records backend's document. */
export const RECORDS_OPENAPI_VERSION = '1.0.0';

const json = (body: unknown, status = 200): FacadeResponse => ({ status, body });
const readiness = (values: string[]) => ({ type: 'object', required: ['status'], properties: { status: { enum: values }, reasons: { type: 'array', items: { type: 'string' } } } });

/**
 * The records backend (doc 03 part I, DECISIONS section 4): each path is one GraphQL operation of
 * records/operations.graphql. Record selections are exactly the REST record {id, model, version,
 * payload}, so they are answered as they come.
 */
export const recordsFacade: Facade = {
  name: 'records',
  errors: recordsErrors,
  openapi: {
    head: {
      title: 'CE-RISE records storage backend',
      version: RECORDS_OPENAPI_VERSION,
      errorSchema: ref('Error'),
      bearer: true,
      schemas: {
        Error: { ...errorEnvelopeSchema, properties: { ...errorEnvelopeSchema.properties, code: { enum: RECORDS_CODES } } },
        Record: {
          type: 'object',
          required: ['id', 'model', 'version', 'payload'],
          properties: { id: { type: 'string' }, model: { type: 'string' }, version: { type: 'string' }, payload: { description: 'any JSON value' } },
        },
        Filter: { type: 'object', description: 'the query filter of the core service (where, sort, limit, offset)' },
      },
    },
    commonErrors: ['INTERNAL_ERROR', 'STORE_ERROR', 'STORE_BUSY', 'RESPONSE_TOO_LARGE', 'TOO_MANY_RECORDS_READ', 'DEADLINE_EXCEEDED'],
    authErrors: ['UNAUTHORIZED', 'FORBIDDEN', 'AUTH_UNAVAILABLE'],
  },
  routes: (context) => [
    operationRoute({
      method: 'POST',
      path: '/records',
      body: 'json',
      operation: RecordsStoreDocument,
      // No header is an empty key, which the domain refuses (MISSING_IDEMPOTENCY_KEY) like a blank one.
      variables: (request) => ({ input: { ...storeRequest(request.body), idempotencyKey: request.header('idempotency-key') ?? '' } }),
      respond: ({ storeRecord: s }) => ({ status: 200, headers: replayHeaders(s.replayed), body: { id: s.record.id } }),
      openapi: {
        summary: 'store a record once per idempotency key (scope records:write)',
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, ...jsonContent(ref('Record')) },
        responses: {
          200: {
            description: 'stored (or replayed, with Idempotent-Replayed: true)',
            headers: { 'Idempotent-Replayed': { schema: { const: 'true' } } },
            ...jsonContent({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } }),
          },
        },
      },
      errors: ['UNPROCESSABLE', 'MISSING_IDEMPOTENCY_KEY', 'IDEMPOTENCY_CONFLICT', 'RECORD_CONFLICT'],
    }),
    operationRoute({
      method: 'POST',
      path: '/records/query',
      body: 'json',
      operation: RecordsQueryDocument,
      variables: (request) => ({ filter: shapedBody(request.body).filter ?? {} }),
      respond: (data) => json({ records: data.records.nodes }),
      openapi: {
        summary: 'query the records the caller may read (scope records:read); an invalid filter is bad_request, its details name the condition',
        requestBody: { required: true, ...jsonContent({ type: 'object', properties: { filter: ref('Filter') } }) },
        responses: ok('matching records', { type: 'object', required: ['records'], properties: { records: { type: 'array', items: ref('Record') } } }),
      },
      errors: ['UNPROCESSABLE'],
    }),
    operationRoute({
      method: 'GET',
      path: '/records/{id}',
      operation: RecordsGetDocument,
      variables: (request) => ({ id: request.params.id! }),
      respond: (data, request) => {
        if (data.record === null) throw new DomainError('RECORD_NOT_FOUND', `record ${request.params.id!} not found`, { id: request.params.id! });
        return json(data.record);
      },
      openapi: {
        summary: 'a record the caller may read (scope records:read); not_found when unknown or not visible',
        parameters: [pathParameter('id', 'record id')],
        responses: ok('the record', ref('Record')),
      },
      errors: ['RECORD_NOT_FOUND'],
    }),
    operationRoute({
      method: 'GET',
      path: '/health',
      operation: RecordsHealthDocument,
      respond: (data) => json({ status: data.health.registry.status }),
      openapi: { summary: 'liveness (no authentication)', authenticated: false, responses: ok('alive', readiness(['ok'])) },
    }),
    operationRoute({
      method: 'GET',
      path: '/ready',
      operation: RecordsReadinessDocument,
      respond: ({ health: { records: r } }) => (r.ready ? json({ status: 'ready' }) : json({ status: 'not_ready', reasons: r.reasons }, 503)),
      openapi: {
        summary: 'readiness: the records store answers (no authentication)',
        authenticated: false,
        responses: { ...ok('ready', readiness(['ready'])), 503: { description: 'not ready', ...jsonContent(readiness(['not_ready'])) } },
      },
    }),
    {
      method: 'GET',
      path: '/openapi.json',
      local: () => json(context.openapi()),
      openapi: { summary: 'this document (no authentication)', authenticated: false, responses: ok('OpenAPI 3.1', { type: 'object' }) },
    },
  ],
};

const NAMES = ['id', 'model', 'version'] as const;

/** `{id, model, version, payload}`: names are non-empty strings, the payload any JSON value; else 422. */
function storeRequest(body: unknown): { id: string; model: string; version: string; payload: unknown } {
  const request = shapedBody(body);
  const problems = [
    ...NAMES.filter((name) => typeof request[name] !== 'string' || request[name] === '').map((name) => ({ at: name, reason: 'must be a non-empty string' })),
    ...('payload' in request ? [] : [{ at: 'payload', reason: 'is required (any JSON value)' }]),
  ];
  if (problems.length > 0) throw unprocessable(problems);
  return { id: request.id as string, model: request.model as string, version: request.version as string, payload: request.payload };
}

/** The body of a request of this facade must be a JSON object (a body of the wrong shape is 422). */
function shapedBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unprocessable([{ at: 'body', reason: 'must be a JSON object' }]);
  return body as Record<string, unknown>;
}

function unprocessable(problems: Array<{ at: string; reason: string }>): DomainError {
  return new DomainError('UNPROCESSABLE', `the request body does not have the documented shape: ${problems.map((p) => `${p.at} ${p.reason}`).join('; ')}`, problems);
}
