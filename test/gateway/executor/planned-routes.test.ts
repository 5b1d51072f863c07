import { JwksServer } from '../../support/jwks-server.js';
import { miniModelHost, VALID_WIDGET } from '../../support/mini-model.js';
import type { ArtifactHost } from '../../support/artifact-host.js';
import { type TestSystem, call, startInProcessSystem } from '../../support/system.js';

/**
 * The REST facades' operations are planned operations (gateway/planned-operations.ts), most of
 * them one fetch whose data is the answer as it comes: the first request of a route goes through
 * @apollo/gateway's executor, later ones run its plan. Every answer, success or error, must be the
 * same either way.
 */
describe('REST routes as planned operations: the same answers as the gateway executor', () => {
  let host: ArtifactHost;
  let idp: JwksServer;
  let sut: TestSystem;
  let token: string;
  let reader: string;

  beforeAll(async () => {
    const mini = await miniModelHost();
    host = mini.host;
    idp = await JwksServer.start();
    token = await idp.sign({ scope: 'openid' });
    reader = await idp.sign({ scope: 'openid records:read' });
    sut = await startInProcessSystem({ ...mini.env, ...idp.authEnv() });
  });
  afterAll(async () => {
    await sut?.stop();
    await idp?.close();
    await host?.stop();
  });

  /** Three identical requests: the first runs the executor, the others the fast path. */
  async function thrice(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const answer = await call(sut.url('core'), method, path, options);
      answers.push({ status: answer.status, body: answer.json ?? answer.text, contentType: answer.headers.get('content-type') });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    return answers[0]!;
  }
  const auth = () => ({ authorization: `Bearer ${token}` });

  test('GET /models, unauthenticated then authenticated', async () => {
    expect((await thrice('GET', '/models')).status).toBe(401);
    const answer = await thrice('GET', '/models', { headers: auth() });
    expect(answer).toMatchObject({ status: 200, body: { models: [{ id: 'mini', version: '1.0' }] } });
  });

  test(':validate: a passing payload, a failing one, an unknown version, a payload that is not an object', async () => {
    const path = '/models/mini/versions/1.0:validate';
    expect((await thrice('POST', path, { body: { payload: VALID_WIDGET }, headers: auth() })).body).toMatchObject({ passed: true });
    const failing = await thrice('POST', path, { body: { payload: { ...VALID_WIDGET, weight: 'heavy' } }, headers: auth() });
    expect(failing).toMatchObject({ status: 200, body: { passed: false } });
    expect((await thrice('POST', '/models/mini/versions/9.9:validate', { body: { payload: VALID_WIDGET }, headers: auth() })).body).toMatchObject({ code: 'MODEL_NOT_FOUND' });
    expect((await thrice('POST', path, { body: { payload: [1] }, headers: auth() })).status).toBe(400);
  });

  test(":query: a missing scope is 403, a bad filter the domain's 400 with its details", async () => {
    const path = '/models/mini/versions/1.0:query';
    expect(await thrice('POST', path, { body: { filter: { limit: 1 } }, headers: auth() })).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    const asReader = { authorization: `Bearer ${reader}` };
    expect(await thrice('POST', path, { body: { filter: { limit: -1 } }, headers: asReader })).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', details: { at: 'limit' } } });
    expect(await thrice('POST', path, { body: { filter: { limit: 1 } }, headers: asReader })).toMatchObject({ status: 200, body: { records: [] } });
  });

  test('the GraphQL endpoint is not affected', async () => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model version } }' }, headers: auth() });
    expect(answer.json).toEqual({ data: { modelVersions: [{ model: 'mini', version: '1.0' }] } });
  });
});
