import { DEFAULT_DATABASE_LIMITS } from '../../database/limits.js';
import { supergraphVersion } from '../../gateway/committed-supergraph.js';
import { openRegistry } from '../../gateway/schema-registry/open-registry.js';
import type { NewSupergraphVersion } from '../../gateway/schema-registry/supergraph-versions.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { JwksServer } from '../support/jwks-server.js';
import { miniModelHost } from '../support/mini-model.js';
import { type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { type TestDatabase, createDatabase } from '../subgraphs/models/store/support.js';
import { bearer } from '../subgraphs/models/records/support.js';

/**
 * Issue 38, item 2: the versions paths of the gateway port against careless and hostile callers.
 * The registry holds 36 versions written through its store: first 5 whose changelog is some 100 KB,
 * then one whose supergraph is larger than an answer may be, then 30 small ones. The paths are a
 * door of the gateway, whatever the process layout: the system runs in this jest process
 * (`startInProcessSystem`, one process as one worker is) with JWT authentication;
 * REQUEST_MAX_RESPONSE_BYTES is 256 KiB, as what the pages are bounded by is what this file tests.
 */
const ANSWER_BYTES = 256 * 1024;
const LARGE_CHANGELOG = 5;
const BIGGEST = LARGE_CHANGELOG + 1;
const VERSIONS = BIGGEST + 30;
/** `from`, `from - 1`, … down to `to`. */
const down = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i);

function version(n: number): NewSupergraphVersion {
  const supergraphSdl = n === BIGGEST ? `type Query { big: String }\n${'#'.repeat(400 * 1024)}\n` : `type Query { v${n}: String }\n`;
  const changes = n <= LARGE_CHANGELOG ? 1000 : 0;
  return {
    supergraphSdl,
    supergraphHash: supergraphVersion(supergraphSdl),
    subgraphs: [{ name: 'models', url: null, sdl: `type Query { v${n}: String }\n` }],
    subgraph: 'models',
    changelog: Array.from({ length: changes }, (_, i) => ({ type: 'FIELD_ADDED', path: `Query.field${i}`, message: `Field 'field${i}' was added to object type 'Query' (${'x'.repeat(40)})` })),
    author: 'ci-bot',
    commit: null,
    forcedReason: null,
    rollbackOf: null,
  };
}

let sut: TestSystem;
let idp: JwksServer;
let auditor: Record<string, string>;
let database: TestDatabase;
const versionsAt = (query: string, headers = auditor) => call(sut.url('gateway'), 'GET', `/admin/supergraph/versions${query}`, { headers });
const ids = (answer: { json: { versions: Array<{ id: number }> } }) => answer.json.versions.map((v) => v.id);

beforeAll(async () => {
  database = await createDatabase('sqlite');
  stopAtScopeEnd(() => database.drop());
  const registry = await openRegistry(database.url, DEFAULT_DATABASE_LIMITS);
  for (let n = 1; n <= VERSIONS; n++) await registry.versions.append(async () => version(n));
  await registry.close();
  idp = await JwksServer.start();
  const mini = await miniModelHost();
  sut = await startInProcessSystem({ ...mini.env, ...idp.authEnv(), DATABASE_URL: database.url, REQUEST_MAX_RESPONSE_BYTES: String(ANSWER_BYTES) });
  auditor = bearer(await idp.sign({ sub: 'ci', scope: 'admin.usage' }));
});

test('no token: 401; a valid token without admin.usage: 403 FORBIDDEN, in the envelope of the usage paths', async () => {
  const tenant = bearer(await idp.sign({ sub: 'bob', tenant_id: 'globex', scope: 'records:read records:write' }));
  for (const path of ['/admin/supergraph/versions', '/admin/supergraph/versions/1']) {
    const anonymous = await call(sut.url('gateway'), 'GET', path);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.errors[0].extensions.code).toBe('UNAUTHORIZED');
    const refused = await call(sut.url('gateway'), 'GET', path, { headers: tenant });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ errors: [{ message: 'admin.usage requires scope admin.usage', extensions: expect.objectContaining({ code: 'FORBIDDEN' }) }] });
    expect(refused.text).not.toContain('ci-bot');
  }
});

test('an id, limit or cursor that is not one: 400 BAD_REQUEST naming it', async () => {
  const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const refusals: Array<[string, string]> = [
    ...['0', '-1', '99999999999', '1e3', '1.5', 'abc', '%20', '0x10'].map((id): [string, string] => [`/${id}`, 'id']),
    ...['0', '101', '-5', 'x', '99999999999999999999', '1e2'].map((limit): [string, string] => [`?limit=${limit}`, 'limit']),
    ...['not-a-cursor', cursorOf({ before: 3 }), cursorOf(-1), cursorOf(1e12), cursorOf('5'), 'A'.repeat(9000)].map((cursor): [string, string] => [`?cursor=${cursor}`, 'cursor']),
  ];
  for (const [query, at] of refusals) {
    const refused = await versionsAt(query);
    expect({ query, status: refused.status, code: refused.json?.errors?.[0]?.extensions?.code }).toEqual({ query, status: 400, code: 'BAD_REQUEST' });
    expect(refused.json.errors[0].extensions.details).toEqual({ at });
  }
});

test('pages: 20 by default, 100 at most, within the answer bytes; walked by `next`, every version once, newest first', async () => {
  const first = await versionsAt('');
  expect(ids(first)).toEqual(down(VERSIONS, VERSIONS - 19));
  const pages = [first];
  for (let cursor = first.json.next; cursor && pages.length < 50; cursor = pages.at(-1)!.json.next) pages.push(await versionsAt(`?limit=100&cursor=${cursor}`));
  expect(pages.every((p) => p.status === 200 && Buffer.byteLength(p.text) <= ANSWER_BYTES)).toBe(true);
  expect(pages.flatMap(ids)).toEqual(down(VERSIONS, 1));
  // The large changelogs are cut by bytes, well before 100 versions.
  expect(pages.length).toBeGreaterThan(3);
});

test('a version larger than an answer may be: 422 RESPONSE_TOO_LARGE; an unknown one: 404 NOT_FOUND', async () => {
  const small = await versionsAt('/1');
  expect(small.status).toBe(200);
  expect(small.json).toEqual(expect.objectContaining({ id: 1, supergraphSdl: 'type Query { v1: String }\n', subgraphs: [{ name: 'models', url: null, sdl: 'type Query { v1: String }\n' }] }));
  const biggest = await versionsAt(`/${BIGGEST}`);
  expect(biggest.status).toBe(422);
  expect(biggest.json.errors[0].extensions.code).toBe('RESPONSE_TOO_LARGE');
  const unknown = await versionsAt('/999999999');
  expect(unknown.status).toBe(404);
  expect(unknown.json).toEqual({ errors: [{ message: 'the registry has no version 999999999', extensions: expect.objectContaining({ code: 'NOT_FOUND' }) }] });
});

test('many at once: sixty pages of 100 (cut by bytes at the large changelogs) and the largest version asked together (one registry connection per worker) each get a whole answer in the envelope, none a 5xx; the probes answer meanwhile', async () => {
  const asked = Array.from({ length: 60 }, (_, i) => (i % 3 === 2 ? versionsAt(`/${BIGGEST}`) : versionsAt('?limit=100')));
  const health = await call(sut.url('core'), 'GET', '/admin/health');
  const answers = await Promise.all(asked);
  expect(health.status).toBe(200);
  const outcomes = answers.map((a) => (a.json?.errors ? `${a.status} ${a.json.errors[0].extensions.code}` : `${a.status} ${ids(a).length > 0 && Buffer.byteLength(a.text) <= ANSWER_BYTES}`));
  expect(new Set(outcomes)).toEqual(new Set(['200 true', '422 RESPONSE_TOO_LARGE']));
});

test('a gateway that opens no records database (USAGE_REPORTING=false): 404 NOT_FOUND, as /admin/usage answers', async () => {
  const gateway = await startInProcessSystem({
    ...idp.authEnv(),
    PROCESS_ROLE: 'gateway',
    GATEWAY_SUBGRAPH_SECRET: 'test-gateway-subgraph-secret',
    USAGE_REPORTING: 'false',
    MODELS_SUBGRAPH_URL: 'http://127.0.0.1:9/graphql',
    INDICATORS_SUBGRAPH_URL: 'http://127.0.0.1:9/graphql',
    IMPACT_SUBGRAPH_URL: 'http://127.0.0.1:9/graphql',
  });
  const usage = await call(gateway.url('gateway'), 'GET', '/admin/usage', { headers: auditor });
  const versions = await call(gateway.url('gateway'), 'GET', '/admin/supergraph/versions', { headers: auditor });
  expect([usage.status, versions.status]).toEqual([404, 404]);
  expect(versions.json).toEqual({
    errors: [
      { message: 'the schema registry is not read on this gateway: it has no records database (a gateway with USAGE_REPORTING=false)', extensions: expect.objectContaining({ code: 'NOT_FOUND' }) },
    ],
  });
  expect(usage.json.errors[0].extensions.code).toBe('NOT_FOUND');
});
