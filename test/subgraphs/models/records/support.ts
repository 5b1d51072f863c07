import { randomUUID } from 'node:crypto';
import { ArtifactHost } from '../../../support/artifact-host.js';
import { miniModelHost } from '../../../support/mini-model.js';
import { type Answer, call } from '../../../support/system.js';

/** `mini` 1.0 (validated Widgets) and `bare` 0.1 (no artifacts: every payload passes). */
export async function recordsModelHost(): Promise<{ host: ArtifactHost; env: Record<string, string> }> {
  const mini = await miniModelHost();
  mini.host.serve('/catalog.json', JSON.stringify([...mini.catalog, { model: 'bare', version: '0.1' }]));
  return { host: mini.host, env: mini.env };
}

export const MINI = '/models/mini/versions/1.0';

/** A valid Widget of the mini model with its own id. */
export function widget(id: string = `w-${randomUUID()}`, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, name: `Widget ${id}`, weight: 2.5, ...extra };
}

export function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** Core `:create` with an Idempotency-Key (none when `key` is undefined). */
export function coreCreate(core: string, payload: unknown, key: string | undefined, headers: Record<string, string> = {}, path = MINI): Promise<Answer> {
  return call(core, 'POST', `${path}:create`, { body: { payload }, headers: { ...headers, ...(key === undefined ? {} : { 'idempotency-key': key }) } });
}

export function coreQuery(core: string, filter: unknown, headers: Record<string, string> = {}, path = MINI): Promise<Answer> {
  return call(core, 'POST', `${path}:query`, { body: filter === undefined ? {} : { filter }, headers });
}

/** `POST /records` with an Idempotency-Key (none when `key` is undefined). */
export function recordsStore(records: string, body: unknown, key: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  return call(records, 'POST', '/records', { body, headers: { ...headers, ...(key === undefined ? {} : { 'idempotency-key': key }) } });
}

export function recordsQuery(records: string, filter: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return call(records, 'POST', '/records/query', { body: { filter }, headers });
}

/** One GraphQL request to the gateway; the parsed answer. */
export async function graphql(gateway: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<any> {
  return (await call(gateway, 'POST', '/graphql', { body: { query, variables }, headers })).json;
}

export const ids = (answer: Answer): string[] => answer.json.records.map((record: { id: string }) => record.id);

/** The answer is `status` with exactly the envelope `{code, message, details}` of that code; its details. */
export function expectError(answer: Answer, status: number, code: string): unknown {
  expect({ status: answer.status, code: answer.json?.code }).toEqual({ status, code });
  expect(Object.keys(answer.json).sort()).toEqual(['code', 'details', 'message']);
  expect(typeof answer.json.message).toBe('string');
  return answer.json.details;
}
