import { createServer as createHttpServer } from 'node:http';
import { type Server, type Socket, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { refusedUrl, startServer } from '../indicators/http-fixtures.js';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../support/system.js';

/**
 * Issue 8, faults: the core is down, slow, silent or cut off while the indicator service validates
 * through it. Through the real indicator facade: 502 CORE_VALIDATION_ERROR within HTTP_TIMEOUT_SECS,
 * and the facade keeps serving. (test/indicators/core-validation.test.ts covers the client itself.)
 */
const TIMEOUT_SECS = 1;
const BOUND_MS = TIMEOUT_SECS * 1000 + 1500;
const COMPUTE = {
  model_version: '0.0.4',
  payload: { indicator_specification_id: 'IND', parameter_assessments: [{ parameter_id: 'P1', question_answers: [] }] },
};

/** A TCP peer that accepts connections and never answers (a hung core). */
async function silentPeer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function computeAgainst(coreUrl: string): Promise<{ status: number; body: unknown; ms: number; healthy: number }> {
  const sut: TestSystem = await startTestSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', CORE_BASE_URL: coreUrl, HTTP_TIMEOUT_SECS: String(TIMEOUT_SECS) });
  try {
    const started = Date.now();
    const answer = await call(sut.url('indicators'), 'POST', '/compute', { body: COMPUTE, headers: { authorization: 'Bearer caller-token' } });
    const ms = Date.now() - started;
    const healthy = (await call(sut.url('indicators'), 'GET', '/health')).status;
    return { status: answer.status, body: answer.json, ms, healthy };
  } finally {
    await sut.stop();
  }
}

const badGateway = { code: 'CORE_VALIDATION_ERROR', message: expect.any(String), details: expect.anything() };

test('core down (connection refused): 502 at once', async () => {
  const outcome = await computeAgainst(await refusedUrl());
  expect(outcome).toEqual({ status: 502, body: badGateway, ms: expect.any(Number), healthy: 200 });
  expect(outcome.ms).toBeLessThan(BOUND_MS);
});

test('core slower than HTTP_TIMEOUT_SECS: 502 within the timeout', async () => {
  const core = await startServer(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"passed":true,"results":[]}', delayMs: 10_000 }));
  try {
    const outcome = await computeAgainst(core.url);
    expect(outcome).toEqual({ status: 502, body: badGateway, ms: expect.any(Number), healthy: 200 });
    expect(outcome.ms).toBeGreaterThanOrEqual(TIMEOUT_SECS * 1000 - 50);
    expect(outcome.ms).toBeLessThan(BOUND_MS);
  } finally {
    await core.close();
  }
});

test('core that accepts the connection and never answers: 502 within the timeout', async () => {
  const core = await silentPeer();
  try {
    const outcome = await computeAgainst(core.url);
    expect(outcome).toEqual({ status: 502, body: badGateway, ms: expect.any(Number), healthy: 200 });
    expect(outcome.ms).toBeLessThan(BOUND_MS);
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
    const outcome = await computeAgainst(`http://127.0.0.1:${(stalling.address() as AddressInfo).port}`);
    expect(outcome).toEqual({ status: 502, body: badGateway, ms: expect.any(Number), healthy: 200 });
    expect(outcome.ms).toBeLessThan(BOUND_MS);
  } finally {
    stalling.closeAllConnections();
    await new Promise((resolve) => stalling.close(resolve));
  }
});
