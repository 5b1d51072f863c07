import { JwksServer } from '../support/jwks-server.js';
import { miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { type TestSystem, call, startInProcessSystem } from '../support/system.js';

let host: ArtifactHost;
let idp: JwksServer;
let sut: TestSystem;
let graphql: string;
let token: string;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  idp = await JwksServer.start();
  sut = await startInProcessSystem({ ...mini.env, ...idp.authEnv() });
  graphql = sut.url('gateway');
  token = await idp.sign();
});
afterAll(async () => {
  await sut?.stop();
  await idp?.close();
  await host?.stop();
});

const query = (body: unknown, headers: Record<string, string> = {}) => call(graphql, 'POST', '/graphql', { body, headers: { authorization: `Bearer ${token}`, ...headers } });

describe('the unified graph serves the core capabilities as typed fields', () => {
  test('model versions, a model version and its artifacts', async () => {
    const answer = await query({ query: '{ modelVersions { model version } modelVersion(model: "mini", version: "1.0") { artifact(kind: SHACL) { mediaType etag } } }' });
    expect(answer.status).toBe(200);
    expect(answer.json.data.modelVersions).toEqual([{ model: 'mini', version: '1.0' }]);
    expect(answer.json.data.modelVersion.artifact.mediaType).toBe('text/turtle; charset=utf-8');
  });

  test('validation report with typed results', async () => {
    const answer = await query({
      query: 'query($p: JSONObject!) { modelVersion(model: "mini", version: "1.0") { validation(payload: $p) { passed results { kind passed violations { path severity } } } } }',
      variables: { p: { ...VALID_WIDGET, extra: true } },
    });
    const validation = answer.json.data.modelVersion.validation;
    expect(validation.passed).toBe(false);
    expect(validation.results.map((r: { kind: string }) => r.kind)).toEqual(['JSON_SCHEMA', 'SHACL', 'OWL']);
    expect(validation.results[0].violations[0].severity).toBe('ERROR');
  });

  test('an unknown model version is null, without an error', async () => {
    const answer = await query({ query: '{ modelVersion(model: "nope", version: "1") { model validation(payload: {}) { passed } } }' });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { modelVersion: null } });
  });

  test('errors carry the REST code and no stack trace', async () => {
    const answer = await query({ query: 'mutation { computeIndicators(input: { assessment: { indicatorSpecificationId: "x" }, payload: {} }) { modelVersion } }' });
    expect(answer.json.errors).toEqual([expect.objectContaining({ extensions: { code: 'INVALID_REQUEST_BODY', details: expect.anything() } })]);
    expect(answer.text).not.toMatch(/stacktrace|at .*\.js/);
  });

  test('an unauthenticated request is refused with 401 and code UNAUTHORIZED', async () => {
    const answer = await call(graphql, 'POST', '/graphql', { body: { query: '{ modelVersions { model } }' } });
    expect(answer.status).toBe(401);
    expect(answer.json.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });

  test('introspection is off unless GRAPHQL_INTROSPECTION=true', async () => {
    const answer = await query({ query: '{ __schema { types { name } } }' });
    expect(answer.json.errors?.[0]?.message).toMatch(/introspection/i);
  });

  test('no answer may be stored by a cache: an answer, an answer with errors, a refusal', async () => {
    const answers = [
      await query({ query: '{ modelVersions { model } }' }),
      await query({ query: 'mutation { computeIndicators(input: { assessment: { indicatorSpecificationId: "x" }, payload: {} }) { modelVersion } }' }),
      await call(graphql, 'POST', '/graphql', { body: { query: '{ modelVersions { model } }' } }),
    ];
    expect(answers.map((a) => [a.status, a.headers.get('cache-control')])).toEqual([
      [200, 'no-store'],
      [200, 'no-store'],
      [401, 'no-store'],
    ]);
  });

  test('CSRF prevention refuses a simple GET without a preflight-forcing header', async () => {
    const answer = await call(graphql, 'GET', `/graphql?query=${encodeURIComponent('{ modelVersions { model } }')}`, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(400);
    const allowed = await call(graphql, 'GET', `/graphql?query=${encodeURIComponent('{ modelVersions { model } }')}`, {
      headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' },
    });
    expect(allowed.status).toBe(200);
  });
});
