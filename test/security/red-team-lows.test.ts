import { readFileSync } from 'node:fs';
import { projectPath } from '../../kernel/project.js';
import { ArtifactHost } from '../support/artifact-host.js';
import { JwksServer } from '../support/jwks-server.js';
import { HOSTILE_SYSTEM_ENV, hostileSubgraphPortEnv } from '../support/hostile-input.js';
import { bearer } from '../support/edges.js';
import { type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { eventually } from '../support/load-loop.js';
import { type TestDatabase, createDatabase } from '../subgraphs/models/store/support.js';

/**
 * Issue 24, the low findings of the red team (jwt_jwks), and issue 23's log line that read a relayed
 * subgraph error as `[object Object]`. None depends on the process layout (they were found on the
 * built server with two workers): the systems run in the jest process, their log lines kept.
 */
const ASSESSMENT = JSON.parse(readFileSync(projectPath('examples', 'models', 're-indicators-specification', '0.0.4', 'example-assessment.request.json'), 'utf8'));
const SECRETS = ['artifact-user', 'artifact-password', 'query-token-value'];
const SUBGRAPH_SECRET = 'red-team-lows-gateway-secret';

let idp: JwksServer;
let token: string;
beforeAll(async () => {
  idp = await JwksServer.start();
  token = await idp.sign({ scope: 'records:read records:write' });
});
afterAll(() => idp?.close());

const graphql = (server: TestSystem, listener: string, query: string, variables: Record<string, unknown> = {}) =>
  call(server.url(listener), 'POST', '/graphql', { body: { query, variables }, headers: bearer(token) });

function serverErrors(server: TestSystem): Array<Record<string, any>> {
  return server.logs.filter((entry) => entry.msg === 'server error');
}

const MISSPELT: Array<[string, Record<string, unknown>]> = [
  ['a misspelt input field', { f: { conditons: [] } }],
  ['a misspelt enum value', { f: { conditions: [{ field: 'PAYLOD', path: 'x', operator: 'EQ', value: { string: 'y' } }] } }],
];
const FILTERED = 'query($f: RecordFilter) { records(filter: $f) { totalCount } }';

describe('the whole system', () => {
  let server: TestSystem;
  let artifacts: ArtifactHost;
  let database: TestDatabase;

  beforeAll(async () => {
    artifacts = await new ArtifactHost().start();
    artifacts.serve('/re/0.0.4/calculation.json', { status: 500, body: 'upstream failure' });
    const template = artifacts.url.replace('http://', `http://${SECRETS[0]}:${SECRETS[1]}@`) + `/re/{version}/?token=${SECRETS[2]}`;
    database = await createDatabase('sqlite');
    server = await startInProcessSystem({ ...HOSTILE_SYSTEM_ENV, ...idp.authEnv(), ARTIFACT_BASE_URL_TEMPLATE: template, REGISTRY_REQUIRE_HTTPS: 'false', DATABASE_URL: database.url }, { logs: true });
  });
  afterAll(async () => {
    await server?.stop();
    await artifacts?.stop();
    await database?.drop();
  });

  test.each(MISSPELT)('introspection off, %s in the variables: BAD_USER_INPUT without "Did you mean"', async (_case, variables) => {
    const answer = await graphql(server, 'gateway', FILTERED, variables);
    expect(answer.json.errors).toEqual([expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } })]);
    expect(answer.text).toMatch(/got invalid value/);
    expect(answer.text).not.toMatch(/Did you mean|"conditions"|PAYLOAD/);
  });

  test("ARTIFACT_BASE_URL_TEMPLATE's credentials and query string: in no /health, health { indicators } or /compute 502", async () => {
    const health = await call(server.url('indicators'), 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json.artifact_base_url_template).toBe(`${artifacts.url}/re/{version}/`);
    const graph = await graphql(server, 'gateway', '{ health { indicators { artifactBaseUrlTemplate calculationArtifactUrlTemplate } } }');
    expect(graph.json.data.health.indicators.artifactBaseUrlTemplate).toBe(`${artifacts.url}/re/{version}/`);
    const compute = await call(server.url('indicators'), 'POST', '/compute', { body: ASSESSMENT, headers: bearer(token) });
    expect(compute.status).toBe(502);
    expect(compute.json).toMatchObject({ code: 'CALCULATION_ARTIFACT_ERROR', details: { calculation_url: `${artifacts.url}/re/0.0.4/calculation.json` } });
    for (const text of [health.text, graph.text, compute.text]) for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  test('a cursor made under one filter, sent with another: 400 BAD_REQUEST naming `after`', async () => {
    for (const id of ['a-1', 'a-2']) {
      const stored = await graphql(server, 'gateway', `mutation { storeRecord(input: { id: "${id}", model: "m", version: "1", idempotencyKey: "${id}", payload: { kind: "a" } }) { replayed } }`);
      expect(stored.json.errors).toBeUndefined();
    }
    const page = (kind: string, after: string | null) =>
      graphql(server, 'gateway', 'query($f: RecordFilter, $after: String) { records(first: 1, after: $after, filter: $f) { nodes { id } pageInfo { endCursor } } }', {
        f: { conditions: [{ field: 'PAYLOAD', path: 'kind', operator: 'EQ', value: { string: kind } }] },
        after,
      });
    const first = await page('a', null);
    const cursor = first.json.data.records.pageInfo.endCursor;
    expect((await page('a', cursor)).json.data.records.nodes).toHaveLength(1);
    const other = await page('b', cursor);
    expect(other.json.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'BAD_REQUEST', details: { at: 'after', reason: 'the cursor belongs to another filter or order (orderBy) of the records' } } }),
    ]);
  });

  test('no secret of these requests reached the log', () => {
    const log = server.logs.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of SECRETS) expect(log).not.toContain(secret);
  });
});

describe('distributed: a gateway over a subgraph that errs and one that is down', () => {
  let gateway: TestSystem;
  let models: ArtifactHost;

  beforeAll(async () => {
    // A real HTTP server answering as a models subgraph whose errors carry no contract code.
    models = await new ArtifactHost().start();
    models.serve('/graphql', { contentType: 'application/json', body: JSON.stringify({ data: null, errors: [{ message: 'boom downstream', extensions: { code: 'SOMETHING_OF_ITS_OWN' } }] }) });
    const down = 'http://127.0.0.1:9/graphql';
    gateway = await startInProcessSystem(
      {
        ...idp.authEnv(),
        PROCESS_ROLE: 'gateway',
        GATEWAY_SUBGRAPH_SECRET: SUBGRAPH_SECRET,
        MODELS_SUBGRAPH_URL: `${models.url}/graphql`,
        INDICATORS_SUBGRAPH_URL: down,
        IMPACT_SUBGRAPH_URL: down,
      },
      { logs: true },
    );
  });
  afterAll(async () => {
    await gateway?.stop();
    await models?.stop();
  });

  test('issue 23: the log line of a relayed subgraph error holds its message and code, and names an anonymous operation', async () => {
    const answer = await graphql(gateway, 'gateway', '{ modelVersions { model } }');
    expect(answer.json.errors).toEqual([expect.objectContaining({ message: 'internal error', extensions: { code: 'INTERNAL_ERROR' } })]);
    const requestId = answer.headers.get('x-request-id');
    const line = await eventually(() => serverErrors(gateway).find((entry) => entry.requestId === requestId) ?? null);
    expect(line).toMatchObject({
      door: 'graphql',
      operation: 'query { modelVersions }',
      codes: ['INTERNAL_ERROR'],
      causes: [{ class: 'GraphQLFormattedError', message: 'boom downstream', code: 'SOMETHING_OF_ITS_OWN' }],
    });
  });

  test('a subgraph that is down: 503 SUBGRAPH_UNAVAILABLE in the facade envelope, its code on /graphql, one line with the cause', async () => {
    const capabilities = await call(gateway.url('impact'), 'GET', '/capabilities');
    expect({ status: capabilities.status, body: capabilities.json }).toEqual({ status: 503, body: { detail: { code: 'SUBGRAPH_UNAVAILABLE', message: 'the impact subgraph could not be reached' } } });
    const health = await call(gateway.url('indicators'), 'GET', '/health');
    expect({ status: health.status, body: health.json }).toEqual({ status: 503, body: { code: 'SUBGRAPH_UNAVAILABLE', message: 'the indicators subgraph could not be reached', details: null } });
    const graph = await graphql(gateway, 'gateway', 'query Capabilities { impactCapabilities { calculationStatus } }');
    expect(graph.json.errors).toEqual([expect.objectContaining({ message: 'the impact subgraph could not be reached', extensions: { code: 'SUBGRAPH_UNAVAILABLE', details: null } })]);
    const requestId = capabilities.headers.get('x-request-id');
    const line = await eventually(() => serverErrors(gateway).find((entry) => entry.requestId === requestId) ?? null);
    expect(line).toMatchObject({
      door: 'impact',
      route: '/capabilities',
      status: 503,
      codes: ['SUBGRAPH_UNAVAILABLE'],
      causes: [{ class: 'Error', message: 'the impact subgraph could not be reached: ECONNREFUSED' }],
    });
    expect(line!.operation).toEqual(expect.any(String));
  });
});

describe('a subgraph port', () => {
  let server: TestSystem;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createDatabase('sqlite');
    server = await startInProcessSystem({ ...hostileSubgraphPortEnv(database.url, SUBGRAPH_SECRET), ...idp.authEnv() });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  test.each(['GET /nope', 'POST /nope', 'GET /graphql/x'])("%s: a JSON 404, not express's HTML page", async (request) => {
    const [method, path] = request.split(' ') as [string, string];
    const answer = await call(server.url('subgraph:models'), method, path);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual({ errors: [{ message: 'not found: this port serves POST /graphql, GET /health and GET /admin/metrics', extensions: { code: 'NOT_FOUND', details: null } }] });
  });

  test.each(MISSPELT)('introspection off, %s in a direct caller\'s variables: no "Did you mean"', async (_case, variables) => {
    const answer = await graphql(server, 'subgraph:models', FILTERED, variables);
    expect(answer.json.errors?.length).toBeGreaterThan(0);
    expect(answer.text).toMatch(/got invalid value/);
    expect(answer.text).not.toMatch(/Did you mean|"conditions"|PAYLOAD/);
  });
});
