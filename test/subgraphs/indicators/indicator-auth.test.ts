import { JwksServer } from '../../support/jwks-server.js';
import { type TestSystem, call, startInProcessSystem } from '../../support/system.js';
import { SAMPLE_SCORES, localProfileEnv, sampleRequest } from './local-profile.js';

/**
 * AUTH_MODE=jwt_jwks with this process's own core: the indicator facade authenticates no one, it
 * forwards the caller's bearer token, and the core's verdict decides (DECISIONS section 2).
 */
describe('indicator facade with a jwt_jwks core', () => {
  let idp: JwksServer;
  let sut: TestSystem;
  const compute = (headers: Record<string, string>) => call(sut.url('indicators'), 'POST', '/compute', { body: sampleRequest(), headers });

  beforeAll(async () => {
    idp = await JwksServer.start();
    sut = await startInProcessSystem({ ...idp.authEnv(), ...localProfileEnv() });
  });
  afterAll(async () => {
    await sut?.stop();
    await idp?.close();
  });

  test('a valid token is forwarded and accepted: 200 with the scores', async () => {
    const answer = await compute({ authorization: `Bearer ${await idp.sign()}` });
    expect(answer.status).toBe(200);
    expect(answer.json.validation).toMatchObject({ status: 'validated_by_core', passed: true });
    expect(answer.json.result.total_score).toBeCloseTo(SAMPLE_SCORES.total, 12);
  });

  test.each([
    ['no token', async () => ({})],
    ['an expired token', async () => ({ authorization: `Bearer ${await idp.sign({ exp: Math.floor(Date.now() / 1000) - 600 })}` })],
    ['a token of another issuer', async () => ({ authorization: `Bearer ${await idp.sign({ iss: 'https://elsewhere' })}` })],
    ['a token signed by an unknown key', async () => ({ authorization: `Bearer ${await idp.signWithUnknownKid()}` })],
  ])('%s: 401 CORE_UNAUTHORIZED', async (_name, headers) => {
    const answer = await compute(await headers());
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ code: 'CORE_UNAUTHORIZED', message: expect.any(String), details: expect.objectContaining({ upstream_status: 401 }) });
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('/health needs no token', async () => {
    expect((await call(sut.url('indicators'), 'GET', '/health')).status).toBe(200);
  });
});

/**
 * Issue 13, item 6: AUTH_MODE=forward_auth. The delegated validation forwards the identity headers
 * to the core when they authenticated the caller here (a trusted proxy's), and never passes on
 * headers anyone could have sent: this process is a trusted peer of its own core.
 */
describe('indicator facade with a forward_auth core', () => {
  let sut: TestSystem;
  // Dual-stack: an IPv4 caller is a trusted proxy, an IPv6 one (::1) is not; the core is called on 127.0.0.1.
  beforeAll(async () => {
    sut = await startInProcessSystem({ ...localProfileEnv(), AUTH_MODE: 'forward_auth', AUTH_FORWARD_TRUSTED_PROXIES: '127.0.0.1/32', SERVER_HOST: '::' });
  });
  const compute = (host: string) =>
    call(`http://${host}:${new URL(sut.url('indicators')).port}`, 'POST', '/compute', { body: sampleRequest(), headers: { 'x-auth-subject': 'dana', 'x-auth-scopes': 'records:read' } });

  test('a trusted proxy’s identity is forwarded: 200, validated by the core', async () => {
    const answer = await compute('127.0.0.1');
    expect(answer.status).toBe(200);
    expect(answer.json.validation).toMatchObject({ status: 'validated_by_core', passed: true });
  });

  test('identity headers from an untrusted peer are not passed on: 401 CORE_UNAUTHORIZED', async () => {
    const answer = await compute('[::1]');
    expect(answer.status).toBe(401);
    expect(answer.json.code).toBe('CORE_UNAUTHORIZED');
  });
});
