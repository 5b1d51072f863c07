import { localProfileEnv } from '../subgraphs/indicators/local-profile.js';
import { type ServerProcess, partialRequest, spawnServer, isAlive, logged, workerPids } from '../support/server-process.js';
import { NO_AUTH, call } from '../support/system.js';
import { eventually } from '../support/load-loop.js';

/**
 * Issue "Every request within a budget", a worker that stops answering is replaced: the primary
 * hears from each worker every second; one silent for WORKER_HEARTBEAT_TIMEOUT_MS is killed and
 * replaced, and a request in flight on it ends with a connection error, never a hang. A stop kills
 * what has not drained past its time. A stuck worker is played by one stopped with SIGSTOP.
 */

/** Two requests in flight, opened one after the other (the primary hands each to a worker that is free). */
async function oneInFlightOnEachWorker(server: ServerProcess) {
  const requests = [1, 2].map(() => partialRequest(server.url('gateway'), 'POST', '/graphql', { query: '{ modelVersions { model } }' }));
  for (const request of requests) await request.sent;
  return requests.map((request) => request.finish().then((answer) => answer.status, (error: NodeJS.ErrnoException) => error.code ?? error.message));
}

test('a worker whose event loop is stuck is killed and replaced; its request in flight ends with a connection error, the other is answered', async () => {
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv(), WORKER_HEARTBEAT_TIMEOUT_MS: '2000' });
  try {
    const inFlight = await oneInFlightOnEachWorker(server);
    const [stuck, healthy] = workerPids(server);
    process.kill(stuck!, 'SIGSTOP');
    expect(await eventually(() => logged(server, 'worker stopped answering; killing it').length === 1)).toBe(true);
    expect(logged(server, 'worker stopped answering; killing it')[0]).toMatchObject({ workerPid: stuck, silentForMs: expect.any(Number) });
    const outcomes = await Promise.all(inFlight);
    expect(outcomes.sort()).toEqual([200, expect.stringMatching(/^(ECONNRESET|EPIPE|socket hang up)$/)].sort());
    expect(await eventually(() => logged(server, 'worker replaced').length === 1)).toBe(true);
    expect(isAlive(stuck!)).toBe(false);
    expect(workerPids(server)).toContain(healthy);
    const after = await Promise.all(Array.from({ length: 6 }, () => call(server.url('core'), 'GET', '/admin/health', { headers: { connection: 'close' } })));
    expect(after.map((answer) => answer.status)).toEqual(Array(6).fill(200));
  } finally {
    for (const pid of workerPids(server)) process.kill(pid, 'SIGCONT');
    await server.stop();
  }
});

test('a worker killed with SIGKILL under requests: none of them hangs (a connection error where it was on that worker)', async () => {
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv() });
  try {
    const inFlight = await oneInFlightOnEachWorker(server);
    process.kill(workerPids(server)[0]!, 'SIGKILL');
    // The primary hands connections to whichever worker is free, so both may be on the survivor.
    for (const outcome of await Promise.all(inFlight)) expect([200, 'ECONNRESET', 'EPIPE', 'socket hang up']).toContain(outcome);
  } finally {
    await server.stop();
  }
});

test('a stop kills a worker that cannot drain once SHUTDOWN_GRACE_MS (and a margin) has passed, and the primary exits 1', async () => {
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv(), SHUTDOWN_GRACE_MS: '1000' });
  const [stuck] = workerPids(server);
  try {
    process.kill(stuck!, 'SIGSTOP');
    server.signal('SIGTERM');
    const exit = await server.exited;
    expect(exit).toEqual({ code: 1, signal: null });
    expect(logged(server, 'worker did not stop in time; killing it')).toEqual([expect.objectContaining({ workerPid: stuck })]);
    expect(isAlive(stuck!)).toBe(false);
  } finally {
    if (isAlive(stuck!)) process.kill(stuck!, 'SIGKILL');
  }
});
