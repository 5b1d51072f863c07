import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localProfileEnv, sampleRequest } from '../subgraphs/indicators/local-profile.js';
import { type ServerProcess, partialRequest, spawnServer, tryConnect } from '../support/server-process.js';
import { NO_AUTH, call } from '../support/system.js';
import { eventually, loadLoop } from '../support/load-loop.js';
import { stopAtScopeEnd } from '../support/cleanup.js';

/**
 * Issue 8, faults: SIGTERM under load, on the built server run as a deployment runs it. Requests in
 * flight finish (including a computation that validates through this process's core after the
 * signal), new connections are refused, the process exits 0, and every create that was answered 200
 * is in the database: a restart replays it, and retrying the unanswered ones duplicates nothing.
 */
const MODEL = '/models/re-indicators-specification/versions/0.0.4';
const sample = sampleRequest();
const assessment = (id: string) => ({ payload: { ...sample.payload, id } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cerise-shutdown-'));
  const removed = dir;
  // Registered first, so removed after the test's servers have stopped.
  stopAtScopeEnd(() => rmSync(removed, { recursive: true, force: true }));
  env = { ...NO_AUTH, ...localProfileEnv(), DATABASE_URL: `file:${path.join(dir, 'records.db')}` };
});

// Servers and load loops are stopped when their test ends, whatever failed (test/support/cleanup.ts).
const start = (extra: Record<string, string> = {}): Promise<ServerProcess> => spawnServer({ ...env, ...extra });

/** Exit code 0 after SIGTERM; otherwise the failure shows what the server wrote. */
async function expectCleanExit(server: ServerProcess): Promise<void> {
  const exit = await server.exited;
  expect({ ...exit, output: exit.code === 0 ? '' : server.output() }).toEqual({ code: 0, signal: null, output: '' });
}

type CreateOutcome = { key: string; id: string; status: number | 'no answer'; replayed: boolean };

/** `:create` calls one after another on a keep-alive connection until stopped; every outcome kept. */
function createStream(core: string, prefix: string) {
  const outcomes: CreateOutcome[] = [];
  const loop = loadLoop(async (n) => {
    const outcome = await create(core, `${prefix}-${n}`);
    outcomes.push(outcome);
    if (outcome.status === 'no answer') await sleep(20);
  });
  return { outcomes, stop: loop.stop };
}

async function create(core: string, key: string): Promise<CreateOutcome> {
  try {
    const answer = await call(core, 'POST', `${MODEL}:create`, { body: assessment(key), headers: { 'idempotency-key': key } });
    return { key, id: answer.json?.id, status: answer.status, replayed: answer.headers.get('idempotent-replayed') === 'true' };
  } catch {
    return { key, id: key, status: 'no answer', replayed: false };
  }
}

test('SIGTERM under load: in-flight requests finish, new connections are refused, exit 0, no write lost', async () => {
  const server = await start({ SHUTDOWN_GRACE_MS: '15000' });
  const inFlight = [
    partialRequest(server.url('core'), 'POST', `${MODEL}:create`, assessment('in-flight-create'), { 'idempotency-key': 'in-flight-create' }),
    partialRequest(server.url('core'), 'POST', `${MODEL}:validate`, assessment('in-flight-validate')),
    partialRequest(server.url('indicators'), 'POST', '/compute', sample),
    partialRequest(server.url('records'), 'POST', '/records', { id: 'in-flight-record', model: 'm', version: '1', payload: { a: 1 } }, { 'idempotency-key': 'in-flight-record' }),
    partialRequest(server.url('gateway'), 'POST', '/graphql', { query: '{ modelVersions { model version } }' }),
  ];
  await Promise.all(inFlight.map((request) => request.sent));
  const load = createStream(server.url('core'), 'load');
  await eventually(() => load.outcomes.filter((o) => o.status === 200).length > 5);

  server.signal('SIGTERM');
  // The process stops accepting as soon as it handles the signal, which a busy machine may delay.
  for (const listener of ['gateway', 'indicators', 'impact', 'records']) {
    const refused = await eventually(async () => (await tryConnect(server.ports[listener]!)) === 'ECONNREFUSED');
    expect({ listener, refused }).toEqual({ listener, refused: true });
  }
  const answers = await Promise.all(inFlight.map((request) => request.finish()));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
  expect(answers[2]!.json.validation.status).toBe('validated_by_core'); // the core answered after the signal

  await expectCleanExit(server);
  expect(await tryConnect(server.ports.core!)).toBe('ECONNREFUSED');
  await load.stop(); // also stopped when the test ends, whatever failed before this line
  const answered = load.outcomes.filter((o) => o.status !== 'no answer');
  expect(answered.length).toBeGreaterThan(5);
  expect(new Set(answered.map((o) => o.status))).toEqual(new Set([200]));

  // Restarted on the same database: every answered create replays with its id; the calls that got
  // no answer, retried with their key, are stored once.
  const again = await start();
  const core = again.url('core');
  for (const outcome of [...load.outcomes, { key: 'in-flight-create', id: 'in-flight-create', status: 200 as const }]) {
    const retried = await create(core, outcome.key);
    if (outcome.status === 200) expect({ key: outcome.key, replayed: retried.replayed, id: retried.id }).toEqual({ key: outcome.key, replayed: true, id: outcome.id });
    else expect(retried.status).toBe(200);
  }
  const stored = await call(core, 'POST', `${MODEL}:query`, { body: { filter: { limit: 1000 } } });
  expect(stored.status).toBe(200);
  const ids = stored.json.records.map((record: { id: string }) => record.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.sort()).toEqual([...load.outcomes.map((o) => o.key), 'in-flight-create'].sort());
  expect((await call(again.url('records'), 'GET', '/records/in-flight-record')).status).toBe(200);
});

// SHUTDOWN_GRACE_MS bounds the exit, not jest's timeout: the grace is far longer than the test may
// take, so a process that waited for the stuck request would fail the test by its timeout.
test('a request still in flight when SHUTDOWN_GRACE_MS runs out is cut, and the process still exits 0', async () => {
  const server = await start({ SHUTDOWN_GRACE_MS: '500' });
  const stuck = partialRequest(server.url('core'), 'POST', `${MODEL}:validate`, assessment('stuck'));
  await stuck.sent;
  server.signal('SIGTERM');
  await expectCleanExit(server);
  await expect(stuck.finish()).rejects.toThrow();
});

test('an idle keep-alive connection does not hold the process: exit 0 well before the grace ends', async () => {
  const server = await start({ SHUTDOWN_GRACE_MS: '600000' });
  expect((await call(server.url('core'), 'GET', '/admin/health')).status).toBe(200); // leaves a pooled connection
  server.signal('SIGTERM');
  await expectCleanExit(server);
});
