import { DomainError } from '../../kernel/errors.js';
import { replayHeaders } from '../http/envelopes.js';
import type { FacadeResponse, Route } from '../route-table.js';

const json = (body: unknown, status = 200): FacadeResponse => ({ status, body });

/**
 * The route table of the records backend (doc 03 part I, DECISIONS section 4). Record selections
 * are exactly the REST record {id, model, version, payload}, so they are answered as they come.
 */
export function recordsRoutes(openapi: () => unknown): Route[] {
  return [
    {
      method: 'POST',
      path: '/records',
      body: 'json',
      operation: `mutation RecordsStore($id: ID!, $model: String!, $version: String!, $payload: JSON, $idempotencyKey: String!) {
        storeRecord(id: $id, model: $model, version: $version, payload: $payload, idempotencyKey: $idempotencyKey) { replayed record { id } }
      }`,
      // No header is an empty key, which the domain refuses (MISSING_IDEMPOTENCY_KEY) like a blank one.
      variables: (request) => ({ ...storeRequest(request.body), idempotencyKey: request.header('idempotency-key') ?? '' }),
      respond: ({ storeRecord: s }) => ({ status: 200, headers: replayHeaders(s.replayed), body: { id: s.record.id } }),
    },
    {
      method: 'POST',
      path: '/records/query',
      body: 'json',
      operation: 'query RecordsQuery($filter: JSON) { records(filter: $filter) { id model version payload } }',
      variables: (request) => ({ filter: shapedBody(request.body).filter ?? null }),
      respond: (data) => json({ records: data.records }),
    },
    {
      method: 'GET',
      path: '/records/{id}',
      operation: 'query RecordsGet($id: ID!) { record(id: $id) { id model version payload } }',
      variables: (request) => ({ id: request.params.id }),
      respond: (data) => json(data.record),
    },
    {
      method: 'GET',
      path: '/health',
      operation: 'query RecordsHealth { coreHealth { status } }',
      respond: (data) => json({ status: data.coreHealth.status }),
    },
    {
      method: 'GET',
      path: '/ready',
      operation: 'query RecordsReadiness { recordsReadiness { ready reasons } }',
      respond: ({ recordsReadiness: r }) => (r.ready ? json({ status: 'ready' }) : json({ status: 'not_ready', reasons: r.reasons }, 503)),
    },
    { method: 'GET', path: '/openapi.json', local: () => json(openapi()) },
  ];
}

const NAMES = ['id', 'model', 'version'] as const;

/** `{id, model, version, payload}`: names are non-empty strings, the payload any JSON value; else 422. */
function storeRequest(body: unknown): Record<string, unknown> {
  const request = shapedBody(body);
  const problems = [
    ...NAMES.filter((name) => typeof request[name] !== 'string' || request[name] === '').map((name) => ({ at: name, reason: 'must be a non-empty string' })),
    ...('payload' in request ? [] : [{ at: 'payload', reason: 'is required (any JSON value)' }]),
  ];
  if (problems.length > 0) throw unprocessable(problems);
  return { id: request.id, model: request.model, version: request.version, payload: request.payload };
}

/** The body of a request of this facade must be a JSON object (a body of the wrong shape is 422). */
function shapedBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unprocessable([{ at: 'body', reason: 'must be a JSON object' }]);
  return body as Record<string, unknown>;
}

function unprocessable(problems: Array<{ at: string; reason: string }>): DomainError {
  return new DomainError('UNPROCESSABLE', `the request body does not have the documented shape: ${problems.map((p) => `${p.at} ${p.reason}`).join('; ')}`, problems);
}
