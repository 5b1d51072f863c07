import { JwksServer } from '../support/jwks-server.js';
import { miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { type TestSystem, call, startTestSystem } from '../support/system.js';
import { SAMPLE_SCORES, SAMPLE_TEMPLATE, sampleRequest } from '../indicators/local-profile.js';

/**
 * Distributed mode: each subgraph in its own server, a gateway process (with the REST facades)
 * calling them over HTTP. The same assertions hold as for the one-process default.
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
    for (const name of ['models', 'indicators', 'impact']) {
      subgraphs[name] = await startTestSystem({ ...mini.env, ...idp.authEnv(), ARTIFACT_BASE_URL_TEMPLATE: SAMPLE_TEMPLATE, PROCESS_ROLE: 'subgraph', SUBGRAPH: name });
    }
    edge = await startTestSystem({
      ...idp.authEnv(),
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
    const direct = await call(subgraphs.models!.url('subgraph:models'), 'POST', '/graphql', { body: { query: '{ models { model } }' } });
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
      body: { query: '{ models { model version } }' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.json).toEqual({ data: { models: [{ model: 'mini', version: '1.0' }] } });
  });

  test('an entity field that @requires fields of another subgraph: both fetched over HTTP', async () => {
    const writer = await idp.sign({ scope: 'records:write records:read' });
    const graphql = async (query: string, variables: Record<string, unknown>) =>
      (await call(edge.url('gateway'), 'POST', '/graphql', { body: { query, variables }, headers: { authorization: `Bearer ${writer}` } })).json;
    const stored = await graphql(
      'mutation($payload: JSON) { storeRecord(id: "scored-1", model: "re-indicators-specification", version: "0.0.4", payload: $payload, idempotencyKey: "scored-1") { record { id } } }',
      sampleRequest(),
    );
    expect(stored).toEqual({ data: { storeRecord: { record: { id: 'scored-1' } } } });
    expect(await graphql('{ record(id: "scored-1") { model indicatorResult { totalScore } } }', {})).toEqual({
      data: { record: { model: 're-indicators-specification', indicatorResult: { totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) } } },
    });
  });

  // Last: it stops the models subgraph.
  test('a subgraph that is down gives 500 INTERNAL_ERROR with no stack trace or upstream text', async () => {
    await subgraphs.models!.stop();
    delete subgraphs.models;
    const answer = await call(edge.url('core'), 'GET', '/models', { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ code: 'INTERNAL_ERROR', message: 'internal error', details: null });
    const graphql = await call(edge.url('gateway'), 'POST', '/graphql', {
      body: { query: '{ models { model } }' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(graphql.json.errors).toEqual([expect.objectContaining({ message: 'internal error', extensions: { code: 'INTERNAL_ERROR' } })]);
    expect(graphql.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
  });
});
