import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopAtScopeEnd } from '../../support/cleanup.js';
import { JwksServer, TEST_AUDIENCE, TEST_ISSUER, nowSecs } from '../../support/jwks-server.js';
import { miniModelHost, VALID_WIDGET } from '../../support/mini-model.js';
import type { ArtifactHost } from '../../support/artifact-host.js';
import { type TestSystem, call, startInProcessSystem } from '../../support/system.js';

/**
 * Each auth mode at the core facade's door, with a real key set and real signed tokens. The
 * identity plugin is what is tested, not the process layout: each system runs in this jest process
 * (the JWKS cache per worker: kernel/identity/jwks-across-workers.test.ts).
 */
let host: ArtifactHost;
let registryEnv: Record<string, string>;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  registryEnv = mini.env;
});
afterAll(() => host?.stop());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const unauthorized = { code: 'UNAUTHORIZED', message: expect.any(String), details: null };

describe('jwt_jwks with a real key set and real signed tokens', () => {
  let idp: JwksServer;
  let sut: TestSystem;
  let core: string;

  beforeAll(async () => {
    idp = await JwksServer.start();
    sut = await startInProcessSystem({ ...registryEnv, ...idp.authEnv() });
    core = sut.url('core');
  });
  afterAll(async () => {
    await sut?.stop();
    await idp?.close();
  });

  test('a valid token reaches the model endpoints (RS256 and ES256)', async () => {
    for (const alg of ['RS256', 'ES256'] as const) {
      const answer = await call(core, 'GET', '/models', { headers: bearer(await idp.sign({}, alg)) });
      expect(answer.status).toBe(200);
    }
  });

  test('/admin/health needs no token; an unknown path is 404 even without one', async () => {
    expect((await call(core, 'GET', '/admin/health')).status).toBe(200);
    const unknown = await call(core, 'GET', '/no/such/path');
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('NOT_FOUND');
  });

  test('every other core endpoint answers 401 UNAUTHORIZED without a token', async () => {
    for (const [method, path] of [
      ['GET', '/models'],
      ['GET', '/models/mini/versions/1.0/schema'],
      ['GET', '/openapi.json'],
      ['GET', '/admin/version'],
      ['GET', '/admin/models/count'],
      ['GET', '/admin/ready'],
      ['GET', '/admin/status'],
      ['GET', '/admin/metrics'],
      ['POST', '/admin/registry/refresh'],
    ] as const) {
      const answer = await call(core, method, path);
      expect({ path, status: answer.status, body: answer.json }).toEqual({ path, status: 401, body: unauthorized });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    }
    const validate = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } });
    expect(validate.status).toBe(401);
  });

  test.each([
    ['expired', () => idp.sign({ exp: nowSecs() - 120 })],
    ['not yet valid', () => idp.sign({ nbf: nowSecs() + 600 })],
    ['wrong issuer', () => idp.sign({ iss: 'https://evil.test/' })],
    ['wrong audience', () => idp.sign({ aud: 'someone-else' })],
    ['unknown kid', () => idp.signWithUnknownKid()],
    ['alg none', async () => idp.algNoneToken()],
    ['HS256 signed with the public key', () => idp.hs256WithPublicKey()],
    ['no subject', () => idp.sign({ sub: undefined })],
    ['garbage', async () => 'not-a-jwt'],
  ])('%s: 401 with the envelope and no token echoed', async (_name, token) => {
    const jwt = await token();
    const answer = await call(core, 'GET', '/models', { headers: bearer(jwt) });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual(unauthorized);
    expect(answer.text).not.toContain(jwt);
  });

  test('an audience array containing ours is accepted', async () => {
    const answer = await call(core, 'GET', '/models', { headers: bearer(await idp.sign({ aud: ['other', TEST_AUDIENCE], iss: TEST_ISSUER })) });
    expect(answer.status).toBe(200);
  });
});

describe('jwt_jwks with the key set unreachable and nothing cached', () => {
  test('answers 503 AUTH_UNAVAILABLE', async () => {
    const idp = await JwksServer.start();
    const token = await idp.sign();
    const env = idp.authEnv();
    await idp.close();
    const sut = await startInProcessSystem({ ...registryEnv, ...env });
    try {
      const answer = await call(sut.url('core'), 'GET', '/models', { headers: bearer(token) });
      expect(answer.status).toBe(503);
      expect(answer.json).toEqual({ code: 'AUTH_UNAVAILABLE', message: expect.any(String), details: null });
    } finally {
      await sut.stop();
    }
  });
});

describe('forward_auth', () => {
  test('identity headers from a trusted peer are accepted; a blank subject is 401', async () => {
    const sut = await startInProcessSystem({ ...registryEnv, AUTH_MODE: 'forward_auth' });
    try {
      const core = sut.url('core');
      expect((await call(core, 'GET', '/models', { headers: { 'x-auth-subject': 'alice', 'x-auth-scopes': 'records:read' } })).status).toBe(200);
      expect((await call(core, 'GET', '/models', { headers: { 'x-auth-subject': '  ' } })).status).toBe(401);
      expect((await call(core, 'GET', '/models')).status).toBe(401);
    } finally {
      await sut.stop();
    }
  });

  test('identity headers from a peer outside AUTH_FORWARD_TRUSTED_PROXIES are refused', async () => {
    const sut = await startInProcessSystem({ ...registryEnv, AUTH_MODE: 'forward_auth', AUTH_FORWARD_TRUSTED_PROXIES: '10.0.0.0/8' });
    try {
      const answer = await call(sut.url('core'), 'GET', '/models', { headers: { 'x-auth-subject': 'alice' } });
      expect(answer.status).toBe(401);
      expect(answer.json.code).toBe('UNAUTHORIZED');
    } finally {
      await sut.stop();
    }
  });
});

describe('none', () => {
  test('does not start without AUTH_ALLOW_INSECURE_NONE=true, naming the variable', async () => {
    await expect(startInProcessSystem({ ...registryEnv, AUTH_MODE: 'none' })).rejects.toThrow(/AUTH_ALLOW_INSECURE_NONE/);
  });

  test('with it, every caller is the local identity', async () => {
    const sut = await startInProcessSystem({ ...registryEnv, AUTH_MODE: 'disabled', AUTH_ALLOW_INSECURE_NONE: 'true' });
    try {
      expect((await call(sut.url('core'), 'GET', '/models')).status).toBe(200);
    } finally {
      await sut.stop();
    }
  });
});

describe('AUTH_POLICY_FILE adds requirements: 403 FORBIDDEN when they are not met', () => {
  test('a role required for models.validate and a scope for the OpenAPI document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'policy-'));
    stopAtScopeEnd(() => rmSync(dir, { recursive: true, force: true }));
    const policy = join(dir, 'policy.json');
    writeFileSync(policy, JSON.stringify({ 'models.validate': { roles: ['validator'] }, 'service.openapi': { scopes: ['docs:read'] } }));
    const idp = await JwksServer.start();
    const sut = await startInProcessSystem({ ...registryEnv, ...idp.authEnv(), AUTH_POLICY_FILE: policy });
    try {
      const core = sut.url('core');
      const body = { payload: VALID_WIDGET };
      const path = '/models/mini/versions/1.0:validate';
      const refused = await call(core, 'POST', path, { body, headers: bearer(await idp.sign()) });
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({
        code: 'FORBIDDEN',
        message: expect.stringContaining('role validator'),
        details: { operation: 'models.validate', missing_scopes: [], missing_roles: ['validator'] },
      });
      const allowed = await call(core, 'POST', path, { body, headers: bearer(await idp.sign({ realm_access: { roles: ['validator'] } })) });
      expect(allowed.status).toBe(200);
      expect((await call(core, 'GET', '/openapi.json', { headers: bearer(await idp.sign()) })).status).toBe(403);
      expect((await call(core, 'GET', '/openapi.json', { headers: bearer(await idp.sign({ scope: 'docs:read' })) })).status).toBe(200);
      expect((await call(core, 'GET', '/models', { headers: bearer(await idp.sign()) })).status).toBe(200);
    } finally {
      await sut.stop();
      await idp.close();
    }
  });
});
