import { JwksServer } from '../support/jwks-server.js';
import { miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { SAMPLE_SCORES, SAMPLE_TEMPLATE, sampleRequest } from '../subgraphs/indicators/local-profile.js';
import { silentPeer } from '../support/silent-peer.js';

/** What the gateway and its subgraphs share in distributed mode (GATEWAY_SUBGRAPH_SECRET). */
const SECRET = { GATEWAY_SUBGRAPH_SECRET: 'test-gateway-subgraph-secret' };

/**
 * Distributed mode: each subgraph in its own server, a gateway process (with the REST facades)
 * calling them over HTTP. The same assertions hold as for the one-process default. What crosses
 * the hop (identity checked again, limits on a subgraph's port, codes and failures relayed) does not
 * depend on how many processes serve each role: each is a system of its own in the jest process,
 * talking HTTP to the others. The roles as deployments start them, each from its example
 * environment as `npm run serve` runs it, are test/server/env-examples.test.ts's.
 */
describe('distributed mode: subgraphs alone, a gateway pointing at their URLs', () => {
  let host: ArtifactHost;
  let idp: JwksServer;
  const subgraphs: Record<string, TestSystem> = {};
  let edge: TestSystem;
  let token: string;

  beforeAll(async () => {
    const mini = await miniModelHost();
    host = mini.host;
    idp = await JwksServer.start();
    token = await idp.sign();
    await Promise.all(
      ['models', 'indicators', 'impact'].map(async (name) => {
        subgraphs[name] = await startInProcessSystem({ ...mini.env, ...idp.authEnv(), ...SECRET, ARTIFACT_BASE_URL_TEMPLATE: SAMPLE_TEMPLATE, PROCESS_ROLE: 'subgraph', SUBGRAPH: name });
      }),
    );
    edge = await startInProcessSystem({
      ...idp.authEnv(),
      ...SECRET,
      PROCESS_ROLE: 'gateway',
      MODELS_SUBGRAPH_URL: `${subgraphs.models!.url('subgraph:models')}/graphql`,
      INDICATORS_SUBGRAPH_URL: `${subgraphs.indicators!.url('subgraph:indicators')}/graphql`,
      IMPACT_SUBGRAPH_URL: `${subgraphs.impact!.url('subgraph:impact')}/graphql`,
    });
  });
  afterAll(async () => {
    await edge?.stop();
    for (const sut of Object.values(subgraphs)) await sut.stop();
    await idp?.close();
    await host?.stop();
  });

  test('the core facade validates through the gateway and a remote subgraph', async () => {
    const answer = await call(edge.url('core'), 'POST', '/models/mini/versions/1.0:validate', {
      body: { payload: VALID_WIDGET },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.json.passed).toBe(true);
  });

  test('error codes survive the HTTP hop', async () => {
    const answer = await call(edge.url('core'), 'GET', '/models/nope/versions/1/schema', { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(404);
    expect(answer.json.code).toBe('MODEL_NOT_FOUND');
  });

  test('the caller is verified again by the subgraph: no token, no data', async () => {
    const unauthenticated = await call(edge.url('core'), 'GET', '/models');
    expect(unauthenticated.status).toBe(401);
    const direct = await call(subgraphs.models!.url('subgraph:models'), 'POST', '/graphql', { body: { query: '{ modelVersions { model } }' } });
    expect(direct.json.errors[0].extensions.code).toBe('UNAUTHORIZED');
    const entities = await call(subgraphs.models!.url('subgraph:models'), 'POST', '/graphql', {
      body: { query: '{ _entities(representations: [{__typename: "ModelVersion", model: "mini", version: "1.0"}]) { ... on ModelVersion { model } } }' },
    });
    expect(entities.json.errors[0].extensions.code).toBe('UNAUTHORIZED');
    expect(entities.json.data?._entities?.[0] ?? null).toBeNull();
  });

  test('the public liveness probe needs no credentials across the hop', async () => {
    const answer = await call(edge.url('core'), 'GET', '/admin/health');
    expect(answer.status).toBe(200);
    expect(answer.json.status).toBe('ok');
  });

  test('the gateway GraphQL endpoint serves the same graph', async () => {
    const answer = await call(edge.url('gateway'), 'POST', '/graphql', {
      body: { query: '{ modelVersions { model version } }' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.json).toEqual({ data: { modelVersions: [{ model: 'mini', version: '1.0' }] } });
  });

  test('an entity field that @requires fields of another subgraph: both fetched over HTTP', async () => {
    const writer = await idp.sign({ scope: 'records:write records:read' });
    const graphql = async (query: string, variables: Record<string, unknown>) =>
      (await call(edge.url('gateway'), 'POST', '/graphql', { body: { query, variables }, headers: { authorization: `Bearer ${writer}` } })).json;
    const stored = await graphql(
      'mutation($payload: JSON) { storeRecord(input: { id: "scored-1", model: "re-indicators-specification", version: "0.0.4", payload: $payload, idempotencyKey: "scored-1" }) { record { id } } }',
      sampleRequest(),
    );
    expect(stored).toEqual({ data: { storeRecord: { record: { id: 'scored-1' } } } });
    expect(await graphql('{ record(id: "scored-1") { model indicatorResult { totalScore } } }', {})).toEqual({
      data: { record: { model: 're-indicators-specification', indicatorResult: { totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) } } },
    });
  });

  test('the public probes answer across the hop without credentials', async () => {
    expect((await call(edge.url('records'), 'GET', '/health')).json).toEqual({ status: 'ok' });
    expect((await call(edge.url('records'), 'GET', '/ready')).json).toEqual({ status: 'ready' });
    expect((await call(edge.url('indicators'), 'GET', '/health')).json.status).toBe('ok');
    expect((await call(edge.url('impact'), 'GET', '/health')).json.status).toBe('ok');
  });

  // Issue 13, item 6: a subgraph port verifies identity like the edge, for everything but its health probe.
  describe('a subgraph port called directly, not by the gateway', () => {
    const direct = (name: string, query: string, headers: Record<string, string> = {}) => call(subgraphs[name]!.url(`subgraph:${name}`), 'POST', '/graphql', { body: { query }, headers });

    test.each([
      ['models', '{ _service { sdl } }'],
      ['models', '{ __schema { types { name } } }'],
      ['models', '{ health { registry { status } } }'],
      ['models', '{ health { records { ready } } }'],
      ['indicators', '{ health { indicators { coreBaseUrl } } }'],
      ['impact', '{ health { impact { status } } }'],
    ])('%s: %s without credentials is 401, nothing executed', async (name, query) => {
      const answer = await direct(name, query);
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHORIZED', details: null } }] });
    });

    test('a wrong gateway secret counts for nothing', async () => {
      const answer = await direct('models', '{ health { registry { status } } }', { 'x-gateway-secret': 'not-the-secret-at-all' });
      expect(answer.status).toBe(401);
    });

    test('an authenticated caller runs fields, but the schema stays closed with introspection off', async () => {
      const auth = { authorization: `Bearer ${token}` };
      expect((await direct('models', '{ health { registry { status } } }', auth)).json).toEqual({ data: { health: { registry: { status: 'ok' } } } });
      for (const query of ['{ _service { sdl } }', '{ __schema { types { name } } }']) {
        const answer = await direct('models', query, auth);
        expect(answer.status).toBe(400);
        expect(answer.json.errors[0].message).toContain('GRAPHQL_INTROSPECTION=true');
      }
    });

    test('the subgraph health probe needs nothing', async () => {
      expect((await call(subgraphs.models!.url('subgraph:models'), 'GET', '/health')).json).toEqual({ status: 'ok' });
    });

    // Issue 13, item 2: authentication first, then the size limits, before any validation.
    test('1,500 repeated fields without a token: 401 before the document is read', async () => {
      const answer = await direct('models', `{${' modelVersions { model version label }'.repeat(1500)} }`);
      expect(answer.status).toBe(401);
    });

    test('5,000 repeated fields with a token: 400 QUERY_TOO_LARGE, not validated', async () => {
      const answer = await direct('models', `{${' modelVersions { model version label }'.repeat(5000)} }`, { authorization: `Bearer ${token}` });
      expect(answer.status).toBe(400);
      expect(answer.json.errors[0].extensions).toEqual({ code: 'QUERY_TOO_LARGE', details: { limit: 3000, measure: 'tokens' } });
    });

    test.each([
      ['16 aliases', `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: modelVersionCount`).join(' ')} }`, 'TOO_MANY_ALIASES', { limit: 15, actual: 16 }],
      [
        '5 aliases of pages of 1,000 records',
        `{ ${Array.from({ length: 5 }, (_, i) => `r${i}: records(first: 1000) { nodes { payload } }`).join(' ')} }`,
        'QUERY_TOO_COMPLEX',
        { limit: 50000, actual: 155005, path: 'r0.nodes.payload' },
      ],
    ])("the edge's operation limits hold on the subgraph port too: %s is 400 %s", async (_what, query, code, details) => {
      const answer = await direct('models', query, { authorization: `Bearer ${token}` });
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({ errors: [{ message: expect.any(String), extensions: { code, details } }] });
    });

    test.each([
      ['several operations and no operationName', { query: 'query A { modelVersionCount } query B { modelVersionCount }' }],
      ['an unknown operationName', { query: 'query A { modelVersionCount }', operationName: 'B' }],
    ])('%s: 400 OPERATION_RESOLUTION_FAILURE, as at the edge', async (_what, body) => {
      const answer = await call(subgraphs.models!.url('subgraph:models'), 'POST', '/graphql', { body, headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(400);
      expect(answer.json.errors[0].extensions).toEqual({ code: 'OPERATION_RESOLUTION_FAILURE' });
    });

    test('suggestions do not reveal names', async () => {
      const answer = await direct('models', '{ model }', { authorization: `Bearer ${token}` });
      expect(answer.json.errors[0].message).toBe('Cannot query field "model" on type "Query".');
    });
  });

  // Last: it stops the models subgraph.
  // Issue 24: 503 SUBGRAPH_UNAVAILABLE (it was 500 INTERNAL_ERROR): the client may retry later.
  test('a subgraph that is down gives 503 SUBGRAPH_UNAVAILABLE with no stack trace or upstream text', async () => {
    await subgraphs.models!.stop();
    delete subgraphs.models;
    const answer = await call(edge.url('core'), 'GET', '/models', { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({ code: 'SUBGRAPH_UNAVAILABLE', message: 'the models subgraph could not be reached', details: null });
    const graphql = await call(edge.url('gateway'), 'POST', '/graphql', {
      body: { query: '{ modelVersions { model } }' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(graphql.json.errors).toEqual([expect.objectContaining({ message: 'the models subgraph could not be reached', extensions: { code: 'SUBGRAPH_UNAVAILABLE', details: null } })]);
    expect(graphql.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
  });
});

// Issue 13, item 5: a remote subgraph that does not answer is a clear error within SUBGRAPH_TIMEOUT_MS.
describe('a subgraph that accepts connections and never answers', () => {
  test('SUBGRAPH_TIMEOUT: 504 on the core facade, its code on /graphql', async () => {
    const peer = await silentPeer();
    const edge = await startInProcessSystem({
      AUTH_MODE: 'none',
      AUTH_ALLOW_INSECURE_NONE: 'true',
      ...SECRET,
      PROCESS_ROLE: 'gateway',
      SUBGRAPH_TIMEOUT_MS: '300',
      MODELS_SUBGRAPH_URL: `${peer.url}/graphql`,
      INDICATORS_SUBGRAPH_URL: `${peer.url}/graphql`,
      IMPACT_SUBGRAPH_URL: `${peer.url}/graphql`,
    });
    const answer = await call(edge.url('core'), 'GET', '/models');
    expect(answer.status).toBe(504);
    expect(answer.json).toEqual({ code: 'SUBGRAPH_TIMEOUT', message: 'the models subgraph did not answer within 300 ms', details: null });
    const graphql = await call(edge.url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model } }' } });
    expect(graphql.json.errors).toEqual([{ message: 'the models subgraph did not answer within 300 ms', extensions: { code: 'SUBGRAPH_TIMEOUT', details: null } }]);
    expect((await call(edge.url('records'), 'GET', '/ready')).json.code).toBe('unavailable');
  });
});

// forward_auth across the hop: the gateway passes on identity headers only when they authenticated
// at its edge. A subgraph trusts the gateway as a proxy, so headers from a peer the edge does not
// trust must never reach it (they did, for REST routes, which run without an edge check).
describe('distributed mode with forward_auth', () => {
  const forwardAuth = { AUTH_MODE: 'forward_auth', AUTH_FORWARD_TRUSTED_PROXIES: '127.0.0.1/32' };
  const identity = { 'x-auth-subject': 'mallory', 'x-auth-scopes': 'records:read' };
  let edge: TestSystem;

  beforeAll(async () => {
    const mini = await miniModelHost();
    const urls: Record<string, string> = {};
    await Promise.all(
      ['models', 'indicators', 'impact'].map(async (name) => {
        const subgraph = await startInProcessSystem({ ...mini.env, ...forwardAuth, ...SECRET, PROCESS_ROLE: 'subgraph', SUBGRAPH: name });
        urls[`${name.toUpperCase()}_SUBGRAPH_URL`] = `${subgraph.url(`subgraph:${name}`)}/graphql`;
      }),
    );
    // Dual-stack: an IPv4 caller (127.0.0.1) is a trusted proxy, an IPv6 one (::1) is not.
    edge = await startInProcessSystem({ ...forwardAuth, ...SECRET, ...urls, PROCESS_ROLE: 'gateway', SERVER_HOST: '::' });
  });
  const models = (host: string) => call(`http://${host}:${new URL(edge.url('core')).port}`, 'GET', '/models', { headers: identity });

  test('identity headers from a trusted proxy reach the subgraph: 200', async () => {
    expect((await models('127.0.0.1')).status).toBe(200);
  });

  test('the same headers from an untrusted peer are not passed on: 401', async () => {
    const answer = await models('[::1]');
    expect(answer.status).toBe(401);
    expect(answer.json.code).toBe('UNAUTHORIZED');
  });
});
