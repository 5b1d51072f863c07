import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localProfileEnv, sampleRequest } from '../indicators/local-profile.js';
import { type ServerProcess, partialRequest, spawnServer, tryConnect } from '../support/server-process.js';
import { NO_AUTH, call } from '../support/system.js';

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
let servers: ServerProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cerise-shutdown-'));
  env = { ...NO_AUTH, ...localProfileEnv(), DATABASE_URL: `file:${path.join(dir, 'records.db')}` };
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  servers = [];
  rmSync(dir, { recursive: true, force: true });
});

async function start(extra: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await spawnServer({ ...env, ...extra });
  servers.push(server);
  return server;
}

type CreateOutcome = { key: string; id: string; status: number | 'no answer'; replayed: boolean };

/** `:create` calls one after another on a keep-alive connection until stopped; every outcome kept. */
function createStream(core: string, prefix: string) {
  const outcomes: CreateOutcome[] = [];
  let running = true;
  const done = (async () => {
    for (let n = 0; running; n++) {
      const key = `${prefix}-${n}`;
      outcomes.push(await create(core, key));
      if (outcomes.at(-1)!.status === 'no answer') await sleep(20);
    }
  })();
  return { outcomes, stop: () => ((running = false), done) };
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
    partialRequest(server.url('gateway'), 'POST', '/graphql', { query: '{ models { model version } }' }),
  ];
  await Promise.all(inFlight.map((request) => request.sent));
  const load = createStream(server.url('core'), 'load');
  await sleep(500);

  server.signal('SIGTERM');
  await sleep(300);
  for (const listener of ['gateway', 'indicators', 'impact', 'records']) {
    expect({ listener, connection: await tryConnect(server.ports[listener]!) }).toEqual({ listener, connection: 'ECONNREFUSED' });
  }
  const answers = await Promise.all(inFlight.map((request) => request.finish()));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
  expect(answers[2]!.json.validation.status).toBe('validated_by_core'); // the core answered after the signal

  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(await tryConnect(server.ports.core!)).toBe('ECONNREFUSED');
  await load.stop();
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

test('a request still in flight when SHUTDOWN_GRACE_MS runs out is cut, and the process still exits 0', async () => {
  const server = await start({ SHUTDOWN_GRACE_MS: '500' });
  const stuck = partialRequest(server.url('core'), 'POST', `${MODEL}:validate`, assessment('stuck'));
  await stuck.sent;
  await sleep(200);
  const started = Date.now();
  server.signal('SIGTERM');
  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(Date.now() - started).toBeLessThan(5000);
  await expect(stuck.finish()).rejects.toThrow();
});

test('an idle keep-alive connection does not hold the process: exit 0 at once', async () => {
  const server = await start();
  expect((await call(server.url('core'), 'GET', '/admin/health')).status).toBe(200); // leaves a pooled connection
  const started = Date.now();
  server.signal('SIGTERM');
  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(Date.now() - started).toBeLessThan(2000);
});
