import { randomUUID } from 'node:crypto';
import type { ArtifactHost } from '../support/artifact-host.js';
import { NO_AUTH, type Answer, type TestSystem, startInProcessSystem } from '../support/system.js';
import { PostgresServer } from '../support/postgres-server.js';
import { onDatabase } from '../subgraphs/models/store/support.js';
import { coreCreate, recordsModelHost, recordsStore } from '../subgraphs/models/records/support.js';
import { eventually, loadLoop } from '../support/load-loop.js';

/**
 * Issue 8, faults: the PostgreSQL server (one of the test's own, test/support/postgres-server.ts)
 * is stopped with `pg_ctl stop` and started again, twice, while a steady stream of creates runs
 * (core `:create` and records `POST /records`): sessions terminated by the server, connections
 * refused, then the server's own start-up. Every call answers: 200, or its facade's envelope (502
 * STORE_ERROR, 503 unavailable). Every 200 is in the database before anyone retries; retrying every
 * call with its key replays the answered ones and stores each record exactly once.
 * (test/records/records-outage.test.ts covers one stop, the readiness probes and half-writes.)
 */
const describePostgres = PostgresServer.available() ? describe : describe.skip;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Call {
  key: string;
  facade: 'core' | 'records';
  answer: Answer;
  phase: string;
}

describePostgres('PostgreSQL stopped and restarted during a stream of creates', () => {
  let host: ArtifactHost;
  let server: PostgresServer;
  let sut: TestSystem;
  const run = randomUUID();
  const calls: Call[] = [];

  beforeAll(async () => {
    const models = await recordsModelHost();
    host = models.host;
    server = await PostgresServer.create();
    sut = await startInProcessSystem({ ...NO_AUTH, ...models.env, DATABASE_URL: server.url });
  }, 60_000);
  afterAll(async () => {
    await sut?.stop();
    await server?.destroy();
    await host?.stop();
  });

  const send = (key: string, facade: Call['facade']) =>
    facade === 'core'
      ? coreCreate(sut.url('core'), { n: key }, key, {}, '/models/bare/versions/0.1')
      : recordsStore(sut.url('records'), { id: key, model: 'bare', version: '0.1', payload: { n: key } }, key);

  test('every call answers 200 or its envelope, through two stops and restarts', async () => {
    // Warm up (first connections, first statements) so the stream starts at its steady pace.
    for (const facade of ['core', 'records'] as const) expect((await send(`${run}-warm-${facade}`, facade)).status).toBe(200);
    let phase = 'start';
    const load = loadLoop(async (n, lane) => {
      const key = `${run}-${lane}-${n}`;
      const facade = lane === 0 ? 'records' : 'core';
      const sentIn = phase;
      calls.push({ key, facade, answer: await send(key, facade), phase: sentIn });
      await sleep(20);
    }, 4);
    // The database stops only once the stream has stored something since it last started, and the
    // stream ends likewise: on a loaded machine a phase's first creates can take longer than its pause.
    const storedSince = (since: string) => () => calls.some((c) => c.phase === since && c.answer.status === 200);
    for (const next of ['stopped', 'restarted', 'stopped again', 'restarted again'] as const) {
      await sleep(600);
      if (next.startsWith('stopped')) await eventually(storedSince(phase));
      await (next.startsWith('stopped') ? server.stop() : server.start());
      phase = next;
    }
    await sleep(600);
    await eventually(storedSince(phase));
    await load.stop(); // also stopped when the test ends, whatever failed before this line

    const failed = calls.filter((c) => c.answer.status !== 200);
    expect(failed.length).toBeGreaterThan(0);
    for (const { facade, answer } of failed) {
      const expected = facade === 'core' ? { status: 502, code: 'STORE_ERROR' } : { status: 503, code: 'unavailable' };
      expect({ status: answer.status, code: answer.json?.code, keys: Object.keys(answer.json ?? {}).sort() }).toEqual({ ...expected, keys: ['code', 'details', 'message'] });
      expect(answer.text).not.toMatch(/postgres|127\.0\.0\.1|SELECT|INSERT|ECONN/i);
    }
    // Recovery without a restart: creates succeed again after each restart.
    for (const phase of ['start', 'restarted', 'restarted again']) {
      expect({ phase, answered: calls.some((c) => c.phase === phase && c.answer.status === 200) }).toEqual({ phase, answered: true });
    }
  });

  test('every call answered 200 is in the database, before anyone retries', async () => {
    const rows = await onDatabase('postgresql', server.url, `SELECT k.key, k.record_id FROM idempotency_keys k WHERE k.key LIKE '${run}-%'`);
    const stored = new Map(rows.map((row) => [row.key as string, row.record_id as string]));
    for (const { key, facade, answer } of calls.filter((c) => c.answer.status === 200)) {
      expect({ key, stored: stored.get(key) }).toEqual({ key, stored: facade === 'core' ? answer.json.id : key });
    }
  });

  test('retrying every call with its key: answered ones replay their record, each record is stored once', async () => {
    const retry = async ({ key, facade, answer }: Call) => {
      const retried = await send(key, facade);
      expect({ key, status: retried.status }).toEqual({ key, status: 200 });
      if (answer.status === 200) {
        expect({ key, replayed: retried.headers.get('idempotent-replayed'), body: retried.json }).toEqual({ key, replayed: 'true', body: answer.json });
      }
    };
    for (let i = 0; i < calls.length; i += 8) await Promise.all(calls.slice(i, i + 8).map(retry));
    const counted = await onDatabase('postgresql', server.url, `SELECT count(*)::int AS records, count(DISTINCT payload->>'n')::int AS distinct_keys FROM records WHERE payload->>'n' LIKE '${run}-%'`);
    expect(counted).toEqual([{ records: calls.length + 2, distinct_keys: calls.length + 2 }]); // + the two warm-ups
  });
});
