import { fakeDateOnly, realClock, stepClock } from '../support/clock.js';
import { JwksServer } from '../support/jwks-server.js';
import { miniModelHost } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { AUTHENTICATING_EDGES, EDGES, bearer, errorCode, probe } from '../support/edges.js';
import { type InProcessSystem, startInProcessSystem } from '../support/system.js';

/**
 * Issue 8, faults: the identity provider's key set goes down, comes back, rotates; the system never
 * restarts. Cached keys keep verifying while the key set is unreachable (docs/DECISIONS.md,
 * "Identity"), also past AUTH_JWKS_REFRESH_SECS; a token no cached key fits is 503.
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
/** Past the tests' AUTH_JWKS_REFRESH_SECS of 1 s, on the stepped clock. */
const PAST_EXPIRY_MS = 1100;

async function expectEveryEdge(sut: InProcessSystem, token: string, expected: (edge: (typeof EDGES)[number]) => { status: number; code?: string }) {
  for (const edge of EDGES) {
    const answer = await probe(sut, edge, bearer(token));
    const want = expected(edge);
    expect({ edge: edge.name, status: answer.status, ...(want.code ? { code: errorCode(answer) } : {}) }).toEqual({ edge: edge.name, ...want });
  }
}

const accepted = (edge: (typeof EDGES)[number]) => ({ status: edge.acceptedStatus });
/** The authenticating edges answer 503; the indicator facade reports the core's 503 as its 502. */
const unavailable = (edge: (typeof EDGES)[number]) =>
  AUTHENTICATING_EDGES.includes(edge) ? { status: 503, code: edge.listener === 'records' ? 'unavailable' : 'AUTH_UNAVAILABLE' } : { status: 502, code: 'CORE_VALIDATION_ERROR' };

describe('key set down with keys cached (AUTH_JWKS_REFRESH_SECS=1)', () => {
  let idp: JwksServer;
  let sut: InProcessSystem;

  beforeAll(async () => {
    fakeDateOnly();
    idp = await JwksServer.start();
    sut = await startInProcessSystem({ ...registryEnv, ...idp.authEnv(), AUTH_JWKS_REFRESH_SECS: '1' });
  });
  afterAll(async () => {
    await sut?.stop();
    await idp?.close();
    realClock();
  });

  test('valid tokens keep working, before and after the cache expires; a new kid is 503; recovery needs no restart', async () => {
    const token = await idp.sign(READ);
    await expectEveryEdge(sut, token, accepted);
    await idp.down();
    await expectEveryEdge(sut, token, accepted);
    stepClock(PAST_EXPIRY_MS); // past AUTH_JWKS_REFRESH_SECS: the refresh fails, the cached keys stay
    await expectEveryEdge(sut, token, accepted);
    await idp.rotate('ES256');
    const rotated = await idp.sign(READ, 'ES256');
    await expectEveryEdge(sut, rotated, unavailable);
    await idp.up();
    await expectEveryEdge(sut, token, accepted);
    stepClock(31_000); // the failed fetch's 30 s window, which keeps an outage from being hammered
    await expectEveryEdge(sut, rotated, accepted);
  });
});

describe('key set down with nothing cached', () => {
  test('503 AUTH_UNAVAILABLE at every authenticating edge, not 401', async () => {
    const idp = await JwksServer.start();
    const token = await idp.sign(READ);
    await idp.down();
    const sut = await startInProcessSystem({ ...registryEnv, ...idp.authEnv() });
    try {
      await expectEveryEdge(sut, token, unavailable);
    } finally {
      await sut.stop();
      await idp.close();
    }
  });
});

describe('key rotation without a restart', () => {
  test('with a short AUTH_JWKS_REFRESH_SECS: the new key is used once the cache expires, the retired one stops', async () => {
    fakeDateOnly();
    const idp = await JwksServer.start();
    const sut = await startInProcessSystem({ ...registryEnv, ...idp.authEnv(), AUTH_JWKS_REFRESH_SECS: '1' });
    try {
      const old = await idp.sign(READ);
      await expectEveryEdge(sut, old, accepted);
      await idp.rotate('RS256', { retireOld: true });
      const rotated = await idp.sign(READ);
      stepClock(PAST_EXPIRY_MS);
      await expectEveryEdge(sut, rotated, accepted);
      await expectEveryEdge(sut, old, (edge) => ({ status: 401, code: edge.refusedCode }));
    } finally {
      await sut.stop();
      await idp.close();
      realClock();
    }
  });

  describe('with the default cache (1 h): through the unknown-kid refetch', () => {
    let idp: JwksServer;
    let sut: InProcessSystem;

    // Only Date is faked (advancing in real time), to step past the 30 s refetch window.
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

    test('a token of the new kid is accepted once the window since the last fetch has passed', async () => {
      await expectEveryEdge(sut, await idp.sign(READ), accepted);
      await idp.rotate('RS256');
      const rotated = await idp.sign(READ);
      stepClock(31_000);
      await expectEveryEdge(sut, rotated, accepted);
      expect(idp.fetchCount).toBe(2);
    });
  });
});
