import { randomUUID } from 'node:crypto';
import { localProfileEnv, sampleRequest } from '../subgraphs/indicators/local-profile.js';
import { type ServerProcess, partialRequest, spawnServer, tryConnect, isAlive, logged, workerPids } from '../support/server-process.js';
import { type Answer, NO_AUTH, callOnNewConnection } from '../support/system.js';
import { eventually, loadLoop } from '../support/load-loop.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { type Backend, backendsUnderTest, createDatabase, onDatabase } from '../subgraphs/models/store/support.js';

/**
 * Issue "Past one process", WORKERS: the built server with two workers (node:cluster) on one
 * database, as `npm run serve` runs it. Both workers answer on the same ports, the database decides
 * between them (idempotency, grants), a worker that dies is replaced, and SIGTERM drains both.
 *
 * A request goes to one worker or the other as the primary hands out connections; each request here
 * opens its own connection (`fresh`) so that they spread. Which worker answered is read from the
 * access log: each line carries the answering process's pid and the request's id.
 */
const backends = await backendsUnderTest();
const MODEL = '/models/re-indicators-specification/versions/0.0.4';
const sample = sampleRequest();
const assessment = (id: string) => ({ payload: { ...sample.payload, id } });
const WRITER = { 'x-auth-subject': 'alice', 'x-auth-scopes': 'records:read records:write' };
const READER = { 'x-auth-subject': 'bob', 'x-auth-scopes': 'records:read' };

/**
 * The worker that answered a request: the pid on its access log line (ACCESS_LOG, on by default),
 * found by the request id the answer carries. Written as the answer goes out, so waited for.
 */
async function answeredBy(server: ServerProcess, answer: Answer): Promise<number> {
  const requestId = answer.headers.get('x-request-id');
  const line = await eventually(() => logged(server, 'request').find((entry) => entry.requestId === requestId));
  return line!.pid as number;
}

/** The workers that answered these requests. */
async function workersOf(server: ServerProcess, answers: Answer[]): Promise<Set<number>> {
  return new Set(await Promise.all(answers.map((answer) => answeredBy(server, answer))));
}

describe.each(backends)('WORKERS=2 on %s', (backend: Backend) => {
  let databaseUrl: string;
  beforeAll(async () => {
    const database = await createDatabase(backend);
    databaseUrl = database.url;
    // Dropped after the servers of this block have stopped (scopes stop newest first).
    stopAtScopeEnd(() => database.drop());
  });
  const storedIds = async (ids: string[]) => (await onDatabase(backend, databaseUrl, `SELECT id FROM records WHERE id IN (${ids.map((id) => `'${id}'`).join(', ')})`)).map((row) => row.id as string);

  describe('one server', () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await spawnServer({ ...localProfileEnv(), AUTH_MODE: 'forward_auth', DATABASE_URL: databaseUrl, WORKERS: '2' });
    });

    test('two worker processes, both answering on the same ports', async () => {
      const [started] = logged(server, 'started');
      expect(started!.workerPids).toHaveLength(2);
      expect(workerPids(server).sort()).toEqual([...started!.workerPids].sort());
      const answers = await Promise.all(Array.from({ length: 20 }, () => callOnNewConnection(server.url('core'), 'GET', '/models', { headers: WRITER })));
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
      expect(await workersOf(server, answers)).toEqual(new Set(started!.workerPids));
    });

    test('50 concurrent identical :create through both workers store one record, no 5xx', async () => {
      const id = `same-${randomUUID()}`;
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => callOnNewConnection(server.url('core'), 'POST', `${MODEL}:create`, { body: assessment(id), headers: { ...WRITER, 'idempotency-key': id } })),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
      const created = answers.filter((answer) => answer.status === 200);
      expect(new Set(created.map((answer) => answer.json.id))).toEqual(new Set([id]));
      expect(created.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
      expect(await storedIds([id])).toEqual([id]);
      expect((await workersOf(server, answers)).size).toBe(2);
    });

    test('a grant made through one worker is seen by the other', async () => {
      const id = `granted-${randomUUID()}`;
      expect((await callOnNewConnection(server.url('core'), 'POST', `${MODEL}:create`, { body: assessment(id), headers: { ...WRITER, 'idempotency-key': id } })).status).toBe(200);
      const listed = async () =>
        (await callOnNewConnection(server.url('records'), 'POST', '/records/query', { body: { filter: { where: [{ field: 'id', op: 'eq', value: id }] } }, headers: READER })).json.records;
      expect(await listed()).toEqual([]);

      const grant = 'mutation ($input: RecordReadGrantInput!) { grantRecordRead(input: $input) { granted } }';
      const granted = await callOnNewConnection(server.url('gateway'), 'POST', '/graphql', { body: { query: grant, variables: { input: { recordId: id, subject: 'bob' } } }, headers: WRITER });
      expect(granted.json).toEqual({ data: { grantRecordRead: { granted: true } } });
      const reads = await Promise.all(Array.from({ length: 10 }, () => callOnNewConnection(server.url('records'), 'GET', `/records/${id}`, { headers: READER })));
      expect(reads.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      expect(await listed()).toEqual([expect.objectContaining({ id })]);
      // Some of the reads, all 200, were answered by the worker that did not grant.
      const granter = await answeredBy(server, granted);
      expect([...(await workersOf(server, reads))].filter((pid) => pid !== granter)).toHaveLength(1);
    });

    // Last in this block: it replaces a worker.
    test('a worker killed with SIGKILL is replaced, and the service keeps answering', async () => {
      const [victim, survivor] = workerPids(server);
      process.kill(victim!, 'SIGKILL');
      expect(await eventually(() => logged(server, 'worker died; starting another').length === 1)).toBe(true);
      const meanwhile = await Promise.all(Array.from({ length: 10 }, () => callOnNewConnection(server.url('core'), 'GET', '/admin/health')));
      expect(meanwhile.map((answer) => answer.status)).toEqual(Array(10).fill(200));

      expect(await eventually(() => logged(server, 'worker replaced').length === 1)).toBe(true);
      const [replaced] = logged(server, 'worker replaced');
      expect(workerPids(server).sort()).toEqual([survivor!, replaced!.workerPid].sort());
      const after = await Promise.all(Array.from({ length: 20 }, () => callOnNewConnection(server.url('core'), 'GET', '/models', { headers: WRITER })));
      expect(after.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    });
  });

  test('SIGTERM under load: every worker drains, no accepted request fails, the primary exits 0', async () => {
    const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv(), DATABASE_URL: databaseUrl, WORKERS: '2', SHUTDOWN_GRACE_MS: '15000' });
    const workers = workerPids(server);
    // Opened one after another, each pair lands on both workers (the primary hands connections out in turn).
    const inFlight = [];
    for (const n of [1, 2]) {
      const key = `in-flight-${n}-${randomUUID()}`;
      for (const request of [
        partialRequest(server.url('core'), 'POST', `${MODEL}:create`, assessment(key), { 'idempotency-key': key }),
        partialRequest(server.url('indicators'), 'POST', '/compute', sample),
        partialRequest(server.url('gateway'), 'POST', '/graphql', { query: '{ modelVersions { model version } }' }),
      ]) {
        await request.sent;
        inFlight.push({ key, request });
      }
    }
    const outcomes: Array<{ key: string; status: number | 'no answer' }> = [];
    const load = loadLoop(async (n, lane) => {
      const key = `load-${lane}-${n}-${randomUUID()}`;
      const status = await callOnNewConnection(server.url('core'), 'POST', `${MODEL}:create`, { body: assessment(key), headers: { 'idempotency-key': key } }).then(
        (answer) => answer.status,
        () => 'no answer' as const,
      );
      outcomes.push({ key, status });
    }, 4);
    await eventually(() => outcomes.filter((o) => o.status === 200).length > 10);

    server.signal('SIGTERM');
    for (const listener of ['gateway', 'indicators', 'impact', 'records']) {
      const refused = await eventually(async () => (await tryConnect(server.ports[listener]!)) === 'ECONNREFUSED');
      expect({ listener, refused }).toEqual({ listener, refused: true });
    }
    const answers = await Promise.all(inFlight.map(({ request }) => request.finish()));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    // The computations validated through a core after the signal: every core waited for them.
    expect(answers.filter((_, n) => n % 3 === 1).map((answer) => answer.json.validation.status)).toEqual(['validated_by_core', 'validated_by_core']);

    const exit = await server.exited;
    expect({ ...exit, output: exit.code === 0 ? '' : server.output() }).toEqual({ code: 0, signal: null, output: '' });
    await load.stop();
    expect(workers.filter(isAlive)).toEqual([]);
    expect(
      logged(server, 'stopping')
        .map((entry) => entry.pid)
        .sort(),
    ).toEqual([server.pid, ...workers].sort());

    const answered = outcomes.filter((o) => o.status !== 'no answer');
    expect(new Set(answered.map((o) => o.status))).toEqual(new Set([200]));
    const created = [...answered.map((o) => o.key), ...inFlight.filter((_, n) => n % 3 === 0).map(({ key }) => key)];
    const stored = await storedIds(created);
    expect(stored).toEqual(expect.arrayContaining(created));
  });
});
