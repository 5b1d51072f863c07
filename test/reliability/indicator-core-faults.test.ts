import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusedUrl, startServer } from '../subgraphs/indicators/http-fixtures.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { silentPeer } from '../support/silent-peer.js';

/**
 * Issue 8, faults: the core is down, slow, silent or cut off while the indicator service validates
 * through it. Through the real indicator facade: 502 CORE_VALIDATION_ERROR within HTTP_TIMEOUT_SECS,
 * and the facade keeps serving. (test/subgraphs/indicators/core-validation.test.ts covers the client itself.)
 */
const TIMEOUT_SECS = 1;
const COMPUTE = {
  model_version: '0.0.4',
  payload: { indicator_specification_id: 'IND', parameter_assessments: [{ parameter_id: 'P1', question_answers: [] }] },
};

async function computeAgainst(coreUrl: string): Promise<{ status: number; body: unknown; healthy: number }> {
  const sut: TestSystem = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', CORE_BASE_URL: coreUrl, HTTP_TIMEOUT_SECS: String(TIMEOUT_SECS) });
  try {
    const answer = await call(sut.url('indicators'), 'POST', '/compute', { body: COMPUTE, headers: { authorization: 'Bearer caller-token' } });
    const healthy = (await call(sut.url('indicators'), 'GET', '/health')).status;
    return { status: answer.status, body: answer.json, healthy };
  } finally {
    await sut.stop();
  }
}

/**
 * The timeout's own message: a core that answers late (10 s) or never would otherwise give a 200 or
 * no answer within the test's time. Speed is the bench's business, not a wall-clock assertion here.
 */
const badGateway = (message: RegExp) => ({ code: 'CORE_VALIDATION_ERROR', message: expect.stringMatching(message), details: expect.anything() });
const timedOut = badGateway(new RegExp(`did not answer within ${TIMEOUT_SECS} s`));

test('core down (connection refused): 502 at once', async () => {
  expect(await computeAgainst(await refusedUrl())).toEqual({ status: 502, body: badGateway(/could not be reached/), healthy: 200 });
});

test('core slower than HTTP_TIMEOUT_SECS: 502 within the timeout', async () => {
  const core = await startServer(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"passed":true,"results":[]}', delayMs: 10_000 }));
  try {
    expect(await computeAgainst(core.url)).toEqual({ status: 502, body: timedOut, healthy: 200 });
  } finally {
    await core.close();
  }
});

test('core that accepts the connection and never answers: 502 within the timeout', async () => {
  const core = await silentPeer();
  try {
    expect(await computeAgainst(core.url)).toEqual({ status: 502, body: timedOut, healthy: 200 });
  } finally {
    await core.close();
  }
});

test('core that sends its headers, then stalls the body: 502 within the timeout', async () => {
  const stalling = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"passed": tr');
  });
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  try {
    expect(await computeAgainst(`http://127.0.0.1:${(stalling.address() as AddressInfo).port}`)).toEqual({ status: 502, body: timedOut, healthy: 200 });
  } finally {
    stalling.closeAllConnections();
    await new Promise((resolve) => stalling.close(resolve));
  }
});
