import { readFile } from 'node:fs/promises';
import { JwksServer } from '../support/jwks-server.js';
import { HOSTILE_SYSTEM_ENV, hostileSubgraphPortEnv } from '../support/hostile-input.js';
import { bearer } from '../support/edges.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { type Answer, STORES, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { type TestDatabase, createDatabase } from '../subgraphs/models/store/support.js';

/**
 * Issue 24, the high finding: 207 bytes with a token that has no scope, a list literal nested 40
 * levels deep, kept a worker at 100% CPU for good (federation's `collectVariablesInValue` walks each
 * list twice: 2^40 steps), deaf to SIGTERM; two of them took a replica down. Now literals are
 * bounded with the document's other limits, before validation or any federation code: 400
 * LITERAL_TOO_DEEP in milliseconds, at the edge and on a subgraph port, through each field that
 * takes a free-form JSON value. The refusals do not depend on the process layout: they are asked of
 * the system in the jest process, on each store (a walk that spun would stop its probe there too).
 * A worker left spinning, deaf to SIGTERM, is the deployment's: that stays on the built server as
 * `npm run serve` runs it (one worker per CPU).
 */
const SECRET = 'hostile-literals-gateway-secret';
const VERSION = '(model: "re-indicators-specification", version: "0.0.4")';

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const DEEP = nested(40);

/** The three ways in of the finding: a payload to validate, a record to store, a filter's JSON value. */
const HOSTILE: Array<[string, string, number]> = [
  ['validation(payload:)', `{ modelVersion${VERSION} { validation(payload: { x: ${DEEP} }) { passed } } }`, 41],
  ['storeRecord', `mutation { storeRecord(input: { id: "r1", model: "re-indicators-specification", version: "0.0.4", idempotencyKey: "k1", payload: { x: ${DEEP} } }) { replayed } }`, 42],
  ['a records filter json value', `{ records(filter: { conditions: [{ field: PAYLOAD, path: "x", operator: EQ, value: { json: ${DEEP} } }] }) { totalCount } }`, 44],
];

let idp: JwksServer;
let token: string;
beforeAll(async () => {
  idp = await JwksServer.start();
  token = await idp.sign({ scope: '' });
});
afterAll(() => idp?.close());

/** Two of each hostile document at once: each refused, the system answering after them, its memory (`pid`'s) grown by less than 100 MB. */
async function expectTwoOfEachServed(gateway: string, core: string, pid: number, rssBefore: number): Promise<void> {
  const answers = await Promise.all(HOSTILE.flatMap(([, query]) => [query, query]).map((query) => call(gateway, 'POST', '/graphql', { body: { query }, headers: bearer(token) })));
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 400));
  expect((await call(core, 'GET', '/admin/health')).status).toBe(200);
  expect((await rssMb(pid)) - rssBefore).toBeLessThan(100);
}

/** Resident memory of a process and its children (the built server's workers), in MB (/proc, as `ps` reads it). */
async function rssMb(pid: number): Promise<number> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean).map(Number);
  let kb = 0;
  for (const each of [pid, ...children]) {
    const status = await readFile(`/proc/${each}/status`, 'utf8').catch(() => '');
    kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return kb / 1024;
}

/**
 * Sends the hostile document while a probe runs alongside it: the refusal comes within two seconds
 * (the finding: never), the probe answers meanwhile.
 */
async function expectRefusedQuickly(url: string, query: string, depth: number, probe: () => Promise<Answer>): Promise<void> {
  const started = Date.now();
  const [answer, probed] = await Promise.all([call(url, 'POST', '/graphql', { body: { query }, headers: bearer(token) }), probe()]);
  const elapsed = Date.now() - started;
  expect({ status: answer.status, body: answer.json }).toEqual({
    status: 400,
    body: { errors: [{ message: `a literal nests lists and objects ${depth} deep, over the limit of 10`, extensions: { code: 'LITERAL_TOO_DEEP', details: { limit: 10, actual: depth } } }] },
  });
  expect(probed.status).toBe(200);
  expect(elapsed).toBeLessThan(2000);
}

describe.each(STORES)('the whole system (jwt_jwks, %s)', (store) => {
  let sut: TestSystem;
  let rssBefore: number;

  beforeAll(async () => {
    sut = await startInProcessSystem({ ...HOSTILE_SYSTEM_ENV, ...idp.authEnv() }, { store });
    rssBefore = await rssMb(sut.pid);
  });
  afterAll(() => sut?.stop());

  test.each(HOSTILE)('/graphql, a 40-level list literal through %s: 400 LITERAL_TOO_DEEP within 2 s, /admin/health answering meanwhile', async (_way, query, depth) => {
    await expectRefusedQuickly(sut.url('gateway'), query, depth, () => call(sut.url('core'), 'GET', '/admin/health'));
  });

  test('two of each at once leave the system serving, its memory bounded', async () => {
    await expectTwoOfEachServed(sut.url('gateway'), sut.url('core'), sut.pid, rssBefore);
  });
});

describe('the built server (npm run serve, jwt_jwks): its workers', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let rssBefore: number;

  beforeAll(async () => {
    database = await createDatabase('sqlite');
    server = await spawnServer({ ...HOSTILE_SYSTEM_ENV, ...idp.authEnv(), DATABASE_URL: database.url });
    rssBefore = await rssMb(server.pid);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  test('two such requests at once on each worker leave the system serving, its memory bounded', async () => {
    await expectTwoOfEachServed(server.url('gateway'), server.url('core'), server.pid, rssBefore);
  });

  test('SIGTERM stops it: no worker is left spinning', async () => {
    server.signal('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});

describe('a subgraph port (PROCESS_ROLE=subgraph, models)', () => {
  let database: TestDatabase;
  let sut: TestSystem;
  let rssBefore: number;

  beforeAll(async () => {
    database = await createDatabase('sqlite');
    sut = await startInProcessSystem({ ...hostileSubgraphPortEnv(database.url, SECRET), ...idp.authEnv() });
    rssBefore = await rssMb(sut.pid);
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
  });

  test.each(HOSTILE)('a direct caller, a 40-level list literal through %s: 400 LITERAL_TOO_DEEP within 2 s, /health answering meanwhile', async (_way, query, depth) => {
    await expectRefusedQuickly(sut.url('subgraph:models'), query, depth, () => call(sut.url('subgraph:models'), 'GET', '/health'));
  });

  test('its memory stays bounded', async () => {
    expect((await rssMb(sut.pid)) - rssBefore).toBeLessThan(100);
  });
});
