import { decodeProtectedHeader } from 'jose';
import { DomainError } from '../../../kernel/errors.js';
import { readAuthConfig, type JwtJwksConfig } from '../../../kernel/identity/auth-config.js';
import { createAuthenticator } from '../../../kernel/identity/create-authenticator.js';
import { JwtJwksAuthenticator, KID_REFETCH_COOLDOWN_MS, type JwtJwksOptions } from '../../../kernel/identity/jwt-jwks-authenticator.js';
import { JwksServer, nowSecs, TEST_AUDIENCE, TEST_ISSUER, TEST_SUBJECT } from '../../support/jwks-server.js';
import { bearer, requestFrom } from './helpers.js';

/** A clock that tests move by hand, for the key set's cache and cooldown. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

function authenticatorFor(idp: JwksServer, options: JwtJwksOptions = {}, env: Record<string, string> = {}): JwtJwksAuthenticator {
  return new JwtJwksAuthenticator(readAuthConfig({ ...idp.authEnv(), ...env }) as JwtJwksConfig, options);
}

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected the token to be rejected');
}

describe('jwt_jwks with a real key set', () => {
  let idp: JwksServer;
  let auth: JwtJwksAuthenticator;

  beforeAll(async () => {
    idp = await JwksServer.start();
    auth = authenticatorFor(idp);
  });
  afterAll(() => idp.close());

  /** Rejected with 401 and the generic message, whatever the cause. */
  async function expectUnauthorized(token: string): Promise<void> {
    const error = await rejection(auth.authenticate(bearer(token)));
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toBe('invalid bearer token');
    expect(error.details).toBeNull();
  }

  test('a valid RS256 token gives the identity', async () => {
    const token = await idp.sign({ realm_access: { roles: ['editor', 'viewer'] }, scope: 'records:read records:write' });
    await expect(auth.authenticate(bearer(token))).resolves.toEqual({
      subject: TEST_SUBJECT,
      roles: ['editor', 'viewer'],
      scopes: ['records:read', 'records:write'],
      tenant: null,
    });
  });

  test('a valid ES256 token is accepted too', async () => {
    await expect(auth.authenticate(bearer(await idp.sign({ sub: 'es-user' }, 'ES256')))).resolves.toMatchObject({ subject: 'es-user' });
  });

  test('createAuthenticator builds this mode from the config, forwarding Authorization', () => {
    const created = createAuthenticator(readAuthConfig(idp.authEnv()));
    expect(created.mode).toBe('jwt_jwks');
    expect(created.credentialHeaders).toEqual(['authorization']);
  });

  test('scopes are the union of scope (space-separated) and scp (string or array)', async () => {
    const union = await auth.authenticate(bearer(await idp.sign({ scope: 'a  b', scp: ['b', 'c'] })));
    expect(union.scopes).toEqual(['a', 'b', 'c']);
    const scpString = await auth.authenticate(bearer(await idp.sign({ scp: 'd e' })));
    expect(scpString.scopes).toEqual(['d', 'e']);
  });

  test('tenant is tenant_id, else tenant', async () => {
    const both = await auth.authenticate(bearer(await idp.sign({ tenant_id: 'acme', tenant: 'other' })));
    expect(both.tenant).toBe('acme');
    const fallback = await auth.authenticate(bearer(await idp.sign({ tenant: 'globex' })));
    expect(fallback.tenant).toBe('globex');
  });

  test('the bearer scheme is case-insensitive; a missing or other scheme is 401', async () => {
    const token = await idp.sign();
    await expect(auth.authenticate(requestFrom({ authorization: `bearer ${token}` }))).resolves.toMatchObject({ subject: TEST_SUBJECT });
    const rejected: Record<string, string>[] = [{}, { authorization: `Basic ${token}` }, { authorization: 'Bearer' }];
    for (const headers of rejected) {
      await expect(auth.authenticate(requestFrom(headers))).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'bearer token required' });
    }
    await expectUnauthorized('not-a-jwt');
  });

  test('expired beyond the 30 s tolerance: 401; within it: accepted', async () => {
    await expectUnauthorized(await idp.sign({ exp: nowSecs() - 40 }));
    await expect(auth.authenticate(bearer(await idp.sign({ exp: nowSecs() - 10 })))).resolves.toMatchObject({ subject: TEST_SUBJECT });
  });

  test('not yet valid (nbf) beyond the tolerance: 401; within it: accepted', async () => {
    await expectUnauthorized(await idp.sign({ nbf: nowSecs() + 60 }));
    await expect(auth.authenticate(bearer(await idp.sign({ nbf: nowSecs() + 10 })))).resolves.toMatchObject({ subject: TEST_SUBJECT });
  });

  test('exp and sub are required; a blank sub is 401', async () => {
    await expectUnauthorized(await idp.sign({ exp: undefined }));
    await expectUnauthorized(await idp.sign({ sub: undefined }));
    await expectUnauthorized(await idp.sign({ sub: '   ' }));
    await expectUnauthorized(await idp.sign({ sub: 42 }));
  });

  test('issuer must match exactly', async () => {
    await expectUnauthorized(await idp.sign({ iss: 'https://evil.example/realms/dpp' }));
    await expectUnauthorized(await idp.sign({ iss: `${TEST_ISSUER}/` }));
    await expectUnauthorized(await idp.sign({ iss: undefined }));
  });

  test('audience: a string equal to it, or an array containing it', async () => {
    await expectUnauthorized(await idp.sign({ aud: 'another-api' }));
    await expectUnauthorized(await idp.sign({ aud: ['another-api', 'account'] }));
    await expectUnauthorized(await idp.sign({ aud: undefined }));
    await expect(auth.authenticate(bearer(await idp.sign({ aud: ['account', TEST_AUDIENCE] })))).resolves.toMatchObject({ subject: TEST_SUBJECT });
  });

  test('alg none is rejected before any key lookup', async () => {
    idp.resetFetchCount();
    await expectUnauthorized(idp.algNoneToken());
    expect(idp.fetchCount).toBe(0);
  });

  test('HS256 signed with the public key as secret is rejected', async () => {
    await expectUnauthorized(await idp.hs256WithPublicKey());
  });

  test('a tampered payload fails the signature check', async () => {
    const [header, , signature] = (await idp.sign({ scope: 'records:read' })).split('.');
    const forged = Buffer.from(JSON.stringify({ iss: TEST_ISSUER, aud: TEST_AUDIENCE, sub: 'admin', exp: nowSecs() + 60, scope: 'records:write' }));
    await expectUnauthorized(`${header}.${forged.toString('base64url')}.${signature}`);
  });

  test('errors never echo the token or its claims', async () => {
    const token = await idp.sign({ iss: 'https://attacker-controlled.example', sub: 'secret-subject' });
    const error = await rejection(auth.authenticate(bearer(token)));
    const seen = JSON.stringify({ message: error.message, details: error.details });
    for (const fragment of [token, 'attacker-controlled', 'secret-subject', 'iss']) expect(seen).not.toContain(fragment);
  });
});

describe('jwt_jwks key set caching and refetching', () => {
  let idp: JwksServer;

  beforeEach(async () => {
    idp = await JwksServer.start();
  });
  afterEach(() => idp.close());

  test('keys are fetched once and cached for AUTH_JWKS_REFRESH_SECS', async () => {
    const clock = manualClock();
    const auth = authenticatorFor(idp, { keySet: { now: clock.now } }, { AUTH_JWKS_REFRESH_SECS: '600' });
    for (let i = 0; i < 5; i += 1) await auth.authenticate(bearer(await idp.sign()));
    expect(idp.fetchCount).toBe(1);
    clock.advance(599_000);
    await auth.authenticate(bearer(await idp.sign()));
    expect(idp.fetchCount).toBe(1);
    clock.advance(1_000);
    await auth.authenticate(bearer(await idp.sign()));
    expect(idp.fetchCount).toBe(2);
  });

  test('concurrent first requests share one fetch', async () => {
    const auth = authenticatorFor(idp);
    const token = await idp.sign();
    await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(bearer(token))));
    expect(idp.fetchCount).toBe(1);
  });

  test('an unknown kid refetches once; a rotated key is then picked up without restart', async () => {
    const clock = manualClock();
    const auth = authenticatorFor(idp, { keySet: { now: clock.now } });
    await auth.authenticate(bearer(await idp.sign()));
    expect(idp.fetchCount).toBe(1);

    clock.advance(KID_REFETCH_COOLDOWN_MS);
    await expect(auth.authenticate(bearer(await idp.signWithUnknownKid()))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(idp.fetchCount).toBe(2);

    const newKid = await idp.rotate('RS256', { retireOld: true });
    const rotated = await idp.sign();
    expect(decodeProtectedHeader(rotated).kid).toBe(newKid);
    clock.advance(KID_REFETCH_COOLDOWN_MS);
    await expect(auth.authenticate(bearer(rotated))).resolves.toMatchObject({ subject: TEST_SUBJECT });
    expect(idp.fetchCount).toBe(3);
  });

  test('a flood of unknown kids fetches at most once per 30 s (the default cooldown)', async () => {
    expect(KID_REFETCH_COOLDOWN_MS).toBe(30_000);
    const clock = manualClock();
    const auth = authenticatorFor(idp, { keySet: { now: clock.now } }); // default cooldown
    await auth.authenticate(bearer(await idp.sign()));
    const unknown = await Promise.all(Array.from({ length: 10 }, () => idp.signWithUnknownKid()));
    const flood = () => Promise.allSettled(unknown.map((token) => auth.authenticate(bearer(token))));

    await flood();
    clock.advance(29_999);
    await flood();
    expect(idp.fetchCount).toBe(1); // still inside the window opened by the first fetch

    clock.advance(1);
    await flood();
    await flood();
    expect(idp.fetchCount).toBe(2);

    clock.advance(29_999);
    await flood();
    expect(idp.fetchCount).toBe(2);
    clock.advance(1);
    await flood();
    expect(idp.fetchCount).toBe(3);
  });

  test('a configured short cooldown behaves the same', async () => {
    const clock = manualClock();
    const [valid, unknown] = await Promise.all([idp.sign(), idp.signWithUnknownKid()]);
    const auth = authenticatorFor(idp, { keySet: { cooldownMs: 1000, now: clock.now } });
    await auth.authenticate(bearer(valid));
    await Promise.allSettled(Array.from({ length: 20 }, () => auth.authenticate(bearer(unknown))));
    expect(idp.fetchCount).toBe(1);
    clock.advance(1000);
    await Promise.allSettled(Array.from({ length: 20 }, () => auth.authenticate(bearer(unknown))));
    expect(idp.fetchCount).toBe(2);
  });

  test('key set down with the key cached: tokens still verify, even after the cache expired', async () => {
    const clock = manualClock();
    const auth = authenticatorFor(idp, { keySet: { now: clock.now } }, { AUTH_JWKS_REFRESH_SECS: '60' });
    const token = await idp.sign();
    await auth.authenticate(bearer(token));
    await idp.down();
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ subject: TEST_SUBJECT });
    clock.advance(61_000);
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ subject: TEST_SUBJECT });
  });

  test('a failing key set is retried at most once per cooldown while cached keys keep working', async () => {
    const clock = manualClock();
    const auth = authenticatorFor(idp, { keySet: { now: clock.now } }, { AUTH_JWKS_REFRESH_SECS: '60' });
    const token = await idp.sign();
    await auth.authenticate(bearer(token));
    idp.failWith(500);
    clock.advance(61_000);
    for (let i = 0; i < 5; i += 1) await auth.authenticate(bearer(token));
    expect(idp.fetchCount).toBe(2);
    clock.advance(KID_REFETCH_COOLDOWN_MS);
    await auth.authenticate(bearer(token));
    expect(idp.fetchCount).toBe(3);
  });

  test('key set down and nothing cached: AUTH_UNAVAILABLE, then recovers once it is back', async () => {
    const clock = manualClock();
    const auth = authenticatorFor(idp, { keySet: { now: clock.now } });
    const token = await idp.sign();
    await idp.down();
    const error = await rejection(auth.authenticate(bearer(token)));
    expect(error.code).toBe('AUTH_UNAVAILABLE');
    expect(error.message).not.toContain(String(idp.url));

    await idp.up();
    clock.advance(KID_REFETCH_COOLDOWN_MS);
    await expect(auth.authenticate(bearer(token))).resolves.toMatchObject({ subject: TEST_SUBJECT });
  });

  test('key set answering 500 with nothing cached: AUTH_UNAVAILABLE', async () => {
    idp.failWith(500);
    const auth = authenticatorFor(idp);
    await expect(auth.authenticate(bearer(await idp.sign()))).rejects.toMatchObject({ code: 'AUTH_UNAVAILABLE' });
  });

  test('key set down and the token kid not cached: AUTH_UNAVAILABLE, not 401', async () => {
    const clock = manualClock();
    const auth = authenticatorFor(idp, { keySet: { now: clock.now } });
    await auth.authenticate(bearer(await idp.sign()));
    await idp.down();
    clock.advance(KID_REFETCH_COOLDOWN_MS);
    await expect(auth.authenticate(bearer(await idp.signWithUnknownKid()))).rejects.toMatchObject({ code: 'AUTH_UNAVAILABLE' });
  });
});
