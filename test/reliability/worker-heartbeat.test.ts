import { localProfileEnv } from '../subgraphs/indicators/local-profile.js';
import { type PartialRequest, type ServerProcess, partialRequest, spawnServer, isAlive, logged, workerHolding, workerPids } from '../support/server-process.js';
import { NO_AUTH, call } from '../support/system.js';
import { eventually } from '../support/load-loop.js';

/**
 * Issue "Every request within a budget", a worker that stops answering is replaced: the primary
 * hears from each worker every second; one silent for WORKER_HEARTBEAT_TIMEOUT_MS is killed and
 * replaced, and a request in flight on it ends with a connection error, never a hang, while one on
 * the other worker is answered. A stop kills what has not drained past its time. A stuck worker is played by one stopped with SIGSTOP.
 * Issue 35, row 2: the watchdog takes one worker at a time, so a replica never has none serving.
 */

/**
 * Requests in flight, opened until each worker holds at least one (the primary decides which worker
 * gets a connection; `workerHolding` asks Linux which one did), each with the worker that holds it.
 */
async function inFlightOnEveryWorker(server: ServerProcess) {
  const requests: Array<{ worker: number | undefined; request: PartialRequest }> = [];
  const held = () => new Set(requests.map((request) => request.worker));
  while (workerPids(server).some((pid) => !held().has(pid)) && requests.length < 12) {
    const request = partialRequest(server.url('gateway'), 'POST', '/graphql', { query: '{ modelVersions { model } }' });
    await request.sent;
    requests.push({ worker: await eventually(() => workerHolding(server, request.localPort()!)), request });
  }
  return requests;
}

/** Sends the rest of each request; resolves with, per worker that held one, its requests' statuses or connection errors. */
async function outcomesByWorker(requests: Array<{ worker: number | undefined; request: PartialRequest }>) {
  const outcomes = await Promise.all(
    requests.map(({ request }) =>
      request.finish().then(
        (answer) => answer.status,
        (error: NodeJS.ErrnoException) => error.code ?? error.message,
      ),
    ),
  );
  const byWorker = new Map<number | undefined, Array<number | string>>();
  requests.forEach(({ worker }, index) => byWorker.set(worker, [...(byWorker.get(worker) ?? []), outcomes[index]!]));
  return byWorker;
}

/** What a request cut by its worker's death ends with, one per request (at least one). */
function allConnectionErrors(outcomes: unknown[] = []) {
  return Array.from({ length: Math.max(outcomes.length, 1) }, () => expect.stringMatching(/^(ECONNRESET|EPIPE|socket hang up)$/));
}

test('a worker whose event loop is stuck is killed and replaced; its request in flight ends with a connection error, the other is answered', async () => {
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv(), WORKER_HEARTBEAT_TIMEOUT_MS: '2000' });
  try {
    const [stuck, healthy] = workerPids(server);
    const inFlight = await inFlightOnEveryWorker(server);
    process.kill(stuck!, 'SIGSTOP');
    expect(await eventually(() => logged(server, 'worker stopped answering; killing it').length === 1)).toBe(true);
    expect(logged(server, 'worker stopped answering; killing it')[0]).toMatchObject({ workerPid: stuck, silentForMs: expect.any(Number) });
    const outcomes = await outcomesByWorker(inFlight);
    expect(outcomes.get(stuck)).toEqual(allConnectionErrors(outcomes.get(stuck)));
    expect(new Set(outcomes.get(healthy))).toEqual(new Set([200]));
    // A replacement starts as any worker does: tens of seconds on a busy 2-core machine.
    expect(await eventually(() => logged(server, 'worker replaced').length === 1, { timeoutMs: 60_000 })).toBe(true);
    expect(isAlive(stuck!)).toBe(false);
    expect(workerPids(server)).toContain(healthy);
    const after = await Promise.all(Array.from({ length: 6 }, () => call(server.url('core'), 'GET', '/admin/health', { headers: { connection: 'close' } })));
    expect(after.map((answer) => answer.status)).toEqual(Array(6).fill(200));
  } finally {
    for (const pid of workerPids(server)) process.kill(pid, 'SIGCONT');
    await server.stop();
  }
});

test("two workers stuck at once are not killed at once: the second is killed only once the first one's replacement listens, and the system answers after", async () => {
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv(), WORKER_HEARTBEAT_TIMEOUT_MS: '2000' });
  const stuck = workerPids(server);
  try {
    for (const pid of stuck) process.kill(pid, 'SIGSTOP');
    const watchdog = () => logged(server, 'worker stopped answering; killing it').length + logged(server, 'worker replaced').length;
    expect(await eventually(() => watchdog() === 4, { timeoutMs: 120_000 })).toBe(true);
    // In the order the primary said them: a kill, its replacement, then the other kill, its replacement.
    const lines = server
      .output()
      .split('\n')
      .filter((line) => /"msg":"(worker stopped answering; killing it|worker replaced)"/.test(line))
      .map((line) => JSON.parse(line) as { msg: string; workerPid: number });
    expect(lines.map((line) => line.msg)).toEqual(['worker stopped answering; killing it', 'worker replaced', 'worker stopped answering; killing it', 'worker replaced']);
    expect(new Set([lines[0]!.workerPid, lines[2]!.workerPid])).toEqual(new Set(stuck));
    for (const pid of stuck) expect(isAlive(pid)).toBe(false);
    const after = await Promise.all(Array.from({ length: 6 }, () => call(server.url('core'), 'GET', '/admin/health', { headers: { connection: 'close' } })));
    expect(after.map((answer) => answer.status)).toEqual(Array(6).fill(200));
  } finally {
    for (const pid of stuck) if (isAlive(pid)) process.kill(pid, 'SIGCONT');
    await server.stop();
  }
});

test('a worker killed with SIGKILL under requests: none of them hangs (a connection error on that worker, 200 on the other)', async () => {
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv() });
  try {
    const [killed, survivor] = workerPids(server);
    const inFlight = await inFlightOnEveryWorker(server);
    process.kill(killed!, 'SIGKILL');
    const outcomes = await outcomesByWorker(inFlight);
    expect(outcomes.get(killed)).toEqual(allConnectionErrors(outcomes.get(killed)));
    expect(new Set(outcomes.get(survivor))).toEqual(new Set([200]));
  } finally {
    await server.stop();
  }
});

// WORKER_MAX_RSS_MB of 1 puts every worker past it: the primary replaces them one after another
// (each replacement too), which is what lets this test hold requests on a worker it replaces.
test('a worker replaced past WORKER_MAX_RSS_MB answers its requests in flight past SHUTDOWN_GRACE_MS: no stop was asked for, its clients notice nothing', async () => {
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv(), WORKER_MAX_RSS_MB: '1', SHUTDOWN_GRACE_MS: '500' });
  try {
    // Once the primary has chosen the worker, while it still serves and its replacement starts.
    expect(await eventually(() => logged(server, 'worker past WORKER_MAX_RSS_MB; replacing it').length > 0, { timeoutMs: 60_000 })).toBe(true);
    const inFlight = await inFlightOnEveryWorker(server);
    const replaced = () => logged(server, 'stopping').filter((line) => line.reason === 'replaced past WORKER_MAX_RSS_MB');
    expect(await eventually(() => replaced().length > 0, { timeoutMs: 60_000 })).toBe(true);
    const drained = replaced()[0]!;
    // Its requests in flight get REQUEST_MAX_DURATION_MS (20 s) past SHUTDOWN_GRACE_MS, not the grace alone.
    expect(drained).toMatchObject({ graceMs: 20_500 });
    expect(inFlight.some(({ worker }) => worker === drained.pid)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Each answered, not cut (a cut is a connection error): 200, or on a machine so busy that its
    // replacement took 20 to 30 s to start, by the request's own limits (504 DEADLINE_EXCEEDED;
    // 408 for a body not whole within SERVER_REQUEST_TIMEOUT_MS).
    const outcomes = (await outcomesByWorker(inFlight)).get(drained.pid)!;
    expect(outcomes.filter((outcome) => ![200, 408, 504].includes(outcome as number))).toEqual([]);
    expect(await eventually(() => !isAlive(drained.pid), { timeoutMs: 30_000 })).toBe(true);
    expect(logged(server, 'worker did not stop in time; killing it')).toEqual([]);
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
