import { request as httpRequest } from 'node:http';
import { miniModelHost } from '../support/mini-model.js';
import { NO_AUTH, STORES, type TestSystem, call, startTestSystem } from '../support/system.js';
import { eventually } from '../support/load-loop.js';
import { isAlive } from '../support/server-process.js';
import {
  LARGE_GRAPHQL_PAGE,
  LARGE_RECORDS,
  LARGE_RECORDS_QUERY,
  type LargeAnswerOutcome,
  type LargeRequest,
  concurrentLargeAnswers,
  outcomeOf,
  sampleReplicaRss,
  seedLargeRecords,
} from '../support/large-answers.js';
import type { ArtifactHost } from '../support/artifact-host.js';

/**
 * Issue 35, row 2: twenty clients at once asking for 35 records of 900 KB payloads (31.5 MB each,
 * just under REQUEST_MAX_RESPONSE_BYTES) took both workers of a replica past 1.4 GB, stalled them,
 * and the watchdog killed both: connections reset, 200s cut short. Now each process holds the
 * answers it builds and writes at once within PROCESS_MAX_ANSWER_MB (kernel/answer-memory.ts),
 * writes a large one in pieces (pipeline.ts), and refuses what does not fit in time with 503 and
 * Retry-After in the door's envelope. Against the system as `npm run serve` starts it (two workers,
 * every default) on PostgreSQL (SQLite where PostgreSQL is not there).
 */
const STORE = STORES.includes('postgresql') ? 'postgresql' : 'sqlite';
const CLIENTS = 20;
/** A screen's page: five records of a few bytes. */
const SMALL_PAGE = '{ records(first: 5, filter: { conditions: [{ field: MODEL, operator: EQ, value: { string: "small" } }] }) { nodes { id payload } } }';
const MB = 2 ** 20;

let mini: { host: ArtifactHost; env: Record<string, string> };
beforeAll(async () => {
  mini = await miniModelHost();
});
afterAll(async () => {
  await mini?.host.stop();
});

/** Every client got its whole answer, or the door's refusal: 503 with Retry-After and the code (`code`). */
function expectCompleteOrBusy(outcomes: LargeAnswerOutcome[], code: string): void {
  expect(outcomes.filter((outcome) => outcome.kind === 'failed')).toEqual([]);
  for (const outcome of outcomes) {
    if (outcome.kind === 'complete') expect(outcome).toEqual({ kind: 'complete', status: 200, records: LARGE_RECORDS });
    else expect(outcome).toEqual({ kind: 'refused', status: 503, code, retryAfter: '1' });
  }
}

async function answersAfter(system: TestSystem): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: 6 }, () => call(system.url('core'), 'GET', '/admin/health', { headers: { connection: 'close' } })));
  return answers.map((answer) => answer.status);
}

describe('twenty near-cap answers at once, every default', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ ...NO_AUTH, ...mini.env }, { store: STORE });
    await seedLargeRecords(system.url('records'));
    for (let n = 0; n < 5; n++) {
      const stored = await call(system.url('records'), 'POST', '/records', { body: { id: `small-${n}`, model: 'small', version: '1', payload: { n } }, headers: { 'idempotency-key': `small-${n}` } });
      expect(stored.status).toBe(200);
    }
  }, 180_000);
  afterAll(async () => {
    await system?.stop();
  });

  const burst = async (base: string, request: LargeRequest) => {
    // One answer first: the operation planned, the pools connected; the baseline is the replica serving.
    await concurrentLargeAnswers(base, 1, request);
    const baseline = await sampleReplicaRss(system.pid).stop();
    const rss = sampleReplicaRss(system.pid);
    const outcomes = await concurrentLargeAnswers(base, CLIENTS, request);
    return { outcomes, growth: (await rss.stop()) - baseline };
  };

  test('on /graphql each is a complete 200 or 503 SERVER_BUSY with Retry-After, none reset or cut short; the replica grows by less than two of its processes at PROCESS_MAX_ANSWER_MB each, thrice', async () => {
    const { outcomes, growth } = await burst(system.url('gateway'), LARGE_GRAPHQL_PAGE);
    expectCompleteOrBusy(outcomes, 'SERVER_BUSY');
    // Before: 1.1 GB and more over the replica serving (a 31.5 MB answer held as objects, as a
    // string and as the socket's buffer, ten at once per worker); now about 200 MB.
    expect(growth).toBeLessThan(2 * 3 * 64 * MB);
    expect(await answersAfter(system)).toEqual(Array(6).fill(200));
  });

  test("on the records facade each is a complete 200 or 503 `unavailable` with Retry-After in the facade's envelope", async () => {
    const { outcomes, growth } = await burst(system.url('records'), LARGE_RECORDS_QUERY);
    expectCompleteOrBusy(outcomes, 'unavailable');
    expect(growth).toBeLessThan(2 * 3 * 64 * MB);
    expect(await answersAfter(system)).toEqual(Array(6).fill(200));
  });

  test("clients that stop reading their near-cap answers hold their process's answer memory, yet every small page is answered at once, and their answers come whole when they read again", async () => {
    const stalled = await Promise.all(Array.from({ length: 4 }, () => stalledLargeAnswer(system.url('gateway'))));
    const small = await Promise.all(Array.from({ length: 10 }, () => call(system.url('gateway'), 'POST', '/graphql', { body: { query: SMALL_PAGE }, headers: { connection: 'close' } })));
    expect(small.map((answer) => [answer.status, answer.json?.data?.records?.nodes?.length])).toEqual(Array(10).fill([200, 5]));
    expectCompleteOrBusy(await concurrentLargeAnswers(system.url('gateway'), 4), 'SERVER_BUSY');
    // Each stalled answer was built whole before its client stopped reading, or, when two reached one
    // worker whose answer memory the first already held (on a busy machine), refused in the envelope.
    const resumed = await Promise.all(stalled.map((reader) => reader.resume()));
    expectCompleteOrBusy(resumed, 'SERVER_BUSY');
    expect(resumed.filter((outcome) => outcome.kind === 'complete').length).toBeGreaterThan(0);
  });
});

/**
 * A client that asks for a near-cap page and stops reading once the answer has begun (its
 * headers came): the server has built it and holds it. `resume` reads the rest.
 */
function stalledLargeAnswer(base: string): Promise<{ resume(): Promise<LargeAnswerOutcome> }> {
  const body = Buffer.from(JSON.stringify(LARGE_GRAPHQL_PAGE.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/graphql`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }, (response) => {
      response.pause();
      resolve({
        resume: () =>
          new Promise((done, fail) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', fail);
            response.on('end', () => done(outcomeOf(LARGE_GRAPHQL_PAGE, response.statusCode ?? 0, response.headers['retry-after'], Buffer.concat(chunks))));
            response.resume();
          }),
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a worker past WORKER_MAX_RSS_MB', () => {
  test('is drained and replaced, one line saying so, while the near-cap answers are served or refused in the envelope; the system answers after', async () => {
    // Between a worker at rest (about 160 MB) and one storing and answering near-cap pages (about 300 to 350 MB).
    const system = await startTestSystem({ ...NO_AUTH, ...mini.env, WORKER_MAX_RSS_MB: '256' }, { store: STORE });
    try {
      await seedLargeRecords(system.url('records'));
      expectCompleteOrBusy(await concurrentLargeAnswers(system.url('gateway'), CLIENTS), 'SERVER_BUSY');
      const outgrown = () => system.logs.filter((line) => line.msg === 'worker past WORKER_MAX_RSS_MB; replacing it');
      expect(await eventually(() => outgrown().length > 0, { timeoutMs: 60_000 })).toBe(true);
      expect(outgrown()[0]).toMatchObject({ level: 50, workerPid: expect.any(Number), rssMb: expect.any(Number), limitMb: 256 });
      expect(outgrown()[0]!.rssMb).toBeGreaterThan(256);
      const replaced = outgrown()[0]!.workerPid as number;
      expect(await eventually(() => !isAlive(replaced), { timeoutMs: 60_000 })).toBe(true);
      expect(system.logs.filter((line) => line.msg === 'worker replaced').length).toBeGreaterThan(0);
      // Drained, not killed, and not a death.
      expect(system.logs.filter((line) => ['worker did not stop in time; killing it', 'worker died; starting another'].includes(line.msg))).toEqual([]);
      expect(await answersAfter(system)).toEqual(Array(6).fill(200));
    } finally {
      await system.stop();
    }
  }, 240_000);
});
