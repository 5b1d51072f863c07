import { fakeDateOnly, realClock, stepClock } from '../support/clock.js';
import { JwksServer, nowSecs } from '../support/jwks-server.js';
import { miniModelHost } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { EDGES, bearer, errorCode, probe } from '../support/edges.js';
import { type InProcessSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 8, auth attacks, through every facade that decides on credentials (test/rest-facade/core/auth-modes
 * proves the core facade's 401 envelope for the same tokens; these add the other edges, the kid
 * flood counted at the key set, and forward_auth spoofing).
 */
let host: ArtifactHost;
let registryEnv: Record<string, string>;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  registryEnv = mini.env;
});
afterAll(() => host?.stop());

const READ = { scope: 'records:read' };

describe('hostile bearer tokens at every edge', () => {
  let idp: JwksServer;
  let sut: InProcessSystem;

  beforeAll(async () => {
    idp = await JwksServer.start();
    sut = await startInProcessSystem({ ...registryEnv, ...idp.authEnv() });
  });
  afterAll(async () => {
    await sut?.stop();
    await idp?.close();
  });

  test.each(EDGES.map((edge) => [edge.name, edge] as const))('%s accepts a valid token', async (_name, edge) => {
    expect((await probe(sut, edge, bearer(await idp.sign(READ)))).status).toBe(edge.acceptedStatus);
  });

  const ATTACKS: Array<[string, () => Promise<string>]> = [
    ['alg none', async () => idp.algNoneToken(READ)],
    ['HS256 signed with the public key', () => idp.hs256WithPublicKey(READ)],
    ['another audience', () => idp.sign({ ...READ, aud: 'another-api' })],
    ['another issuer', () => idp.sign({ ...READ, iss: 'https://evil.test/realms/dpp' })],
    ['expired (past the 30 s tolerance)', () => idp.sign({ ...READ, iat: nowSecs() - 600, exp: nowSecs() - 60 })],
    ['not yet valid (past the 30 s tolerance)', () => idp.sign({ ...READ, nbf: nowSecs() + 120 })],
    ['blank subject', () => idp.sign({ ...READ, sub: '   ' })],
    ['no subject', () => idp.sign({ ...READ, sub: undefined })],
    ['no expiry', () => idp.sign({ ...READ, exp: undefined })],
    ['signed by a key the issuer never published', () => idp.signWithUnknownKid(READ)],
  ];

  test.each(ATTACKS)('%s: 401 at every edge, in its envelope, the token never echoed', async (_name, forge) => {
    const token = await forge();
    for (const edge of EDGES) {
      const answer = await probe(sut, edge, bearer(token));
      expect({ edge: edge.name, status: answer.status, code: errorCode(answer) }).toEqual({ edge: edge.name, status: 401, code: edge.refusedCode });
      expect(answer.text).not.toContain(token);
    }
  });
});

describe('a flood of unknown kids', () => {
  let idp: JwksServer;
  let sut: InProcessSystem;

  // Only Date is faked (advancing in real time) so the test can step past the 30 s window; the key
  // set's clock is Date.now, read when the system starts.
  beforeAll(async () => {
    fakeDateOnly();
    idp = await JwksServer.start();
    sut = await startInProcessSystem({ ...registryEnv, ...idp.authEnv() });
  });
  afterAll(async () => {
    await sut?.stop();
    await idp?.close();
    realClock();
  });

  const flood = async (count: number) => {
    // ES256: a fresh key per token is cheap, so every token carries a kid of its own.
    const tokens = await Promise.all(Array.from({ length: count }, () => idp.signWithUnknownKid(READ, 'ES256')));
    const answers = await Promise.all(tokens.map((token, i) => probe(sut, EDGES[i % EDGES.length]!, bearer(token))));
    return answers.map((answer) => answer.status);
  };

  test('fetches the key set at most once per 30 s, through the facades', async () => {
    expect((await probe(sut, EDGES[0]!, bearer(await idp.sign(READ)))).status).toBe(200);
    expect(idp.fetchCount).toBe(1);
    expect(new Set(await flood(60))).toEqual(new Set([401]));
    expect(idp.fetchCount).toBe(1); // inside the window the first fetch opened
    stepClock(31_000);
    expect(new Set(await flood(60))).toEqual(new Set([401]));
    expect(idp.fetchCount).toBe(2); // one refetch for the whole flood
    expect(new Set(await flood(20))).toEqual(new Set([401]));
    expect(idp.fetchCount).toBe(2);
  });

  test('while the key set fails: at most one attempt per 30 s, unknown kids 503, cached keys still 200', async () => {
    stepClock(31_000);
    idp.failWith(500);
    idp.resetFetchCount();
    try {
      const statuses = await flood(40);
      expect(new Set(statuses.filter((_, i) => EDGES[i % EDGES.length]!.listener !== 'indicators'))).toEqual(new Set([503]));
      expect(idp.fetchCount).toBe(1);
      expect((await probe(sut, EDGES[0]!, bearer(await idp.sign(READ)))).status).toBe(200);
      await flood(20);
      expect(idp.fetchCount).toBe(1);
    } finally {
      idp.failWith(undefined);
    }
  });
});

describe('forward_auth spoofing', () => {
  const identity = { 'x-auth-subject': 'alice', 'x-auth-scopes': 'records:read' };

  test('identity headers from a peer outside AUTH_FORWARD_TRUSTED_PROXIES: 401 at every authenticating edge', async () => {
    const sut = await startInProcessSystem({ ...registryEnv, AUTH_MODE: 'forward_auth', AUTH_FORWARD_TRUSTED_PROXIES: '10.0.0.0/8,::ffff:10.0.0.0/104' });
    try {
      for (const edge of EDGES.filter((e) => e.listener !== 'indicators')) {
        const answer = await probe(sut, edge, identity);
        expect({ edge: edge.name, status: answer.status, code: errorCode(answer) }).toEqual({ edge: edge.name, status: 401, code: edge.refusedCode });
      }
    } finally {
      await sut.stop();
    }
  });

  test('from a trusted peer: accepted; a blank or missing subject is 401 at every authenticating edge', async () => {
    const sut = await startInProcessSystem({ ...registryEnv, AUTH_MODE: 'forward_auth' });
    try {
      for (const edge of EDGES.filter((e) => e.listener !== 'indicators')) {
        expect((await probe(sut, edge, identity)).status).toBe(edge.acceptedStatus);
        for (const headers of [{ ...identity, 'x-auth-subject': ' \t ' }, { 'x-auth-scopes': 'records:read' }]) {
          const answer = await probe(sut, edge, headers);
          expect({ edge: edge.name, status: answer.status, code: errorCode(answer) }).toEqual({ edge: edge.name, status: 401, code: edge.refusedCode });
        }
      }
    } finally {
      await sut.stop();
    }
  });

  // Issue 13, item 6: the delegated validation works in forward_auth mode, without laundering headers.
  test('the indicator facade forwards identity headers to the core only when they authenticated here', async () => {
    const indicators = EDGES.find((e) => e.listener === 'indicators')!;
    const untrusted = await startInProcessSystem({ ...registryEnv, AUTH_MODE: 'forward_auth', AUTH_FORWARD_TRUSTED_PROXIES: '10.0.0.0/8,::ffff:10.0.0.0/104' });
    const spoofed = await call(untrusted.url('indicators'), 'POST', '/compute', { body: indicators.body, headers: identity });
    expect({ status: spoofed.status, code: errorCode(spoofed) }).toEqual({ status: 401, code: 'CORE_UNAUTHORIZED' });
    const trusted = await startInProcessSystem({ ...registryEnv, AUTH_MODE: 'forward_auth' });
    expect((await call(trusted.url('indicators'), 'POST', '/compute', { body: indicators.body, headers: identity })).status).toBe(indicators.acceptedStatus);
  });
});
