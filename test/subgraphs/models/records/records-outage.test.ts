import { randomUUID } from 'node:crypto';
import type { ArtifactHost } from '../../../support/artifact-host.js';
import { NO_AUTH, type Answer, type TestSystem, call, startInProcessSystem } from '../../../support/system.js';
import { TcpProxy } from '../../../support/tcp-proxy.js';
import { createDatabase, onDatabase, postgresReachable, type TestDatabase } from '../store/support.js';
import { coreCreate, expectError, recordsModelHost, recordsStore, widget } from './support.js';

/**
 * PostgreSQL stops mid-run (a TCP proxy in front of it is cut): answers become 502 STORE_ERROR on
 * the core and 503 `unavailable` on the records backend, nothing is half-written, and the service
 * recovers without a restart once the database is back.
 */
const describePostgres = (await postgresReachable()) ? describe : describe.skip;

describePostgres('database outage', () => {
  let host: ArtifactHost;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let sut: TestSystem;
  let core: string;
  let records: string;
  const marker = randomUUID();

  beforeAll(async () => {
    const models = await recordsModelHost();
    host = models.host;
    database = await createDatabase('postgresql');
    const target = new URL(database.url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    sut = await startInProcessSystem({ ...NO_AUTH, ...models.env, DATABASE_URL: proxied.toString() });
    core = sut.url('core');
    records = sut.url('records');
  });
  afterAll(async () => {
    await sut?.stop();
    await proxy?.down();
    await database?.drop();
    await host?.stop();
  });

  /** Request n of the run: its own key and record id. */
  const request = (n: number) => ({ key: `${marker}-${n}`, payload: widget(`${marker}-${n}`, { name: marker }) });
  const create = (n: number) => coreCreate(core, request(n).payload, request(n).key);

  /** Rows of this run, read directly (not through the proxy). */
  const rows = (sql: string) => onDatabase('postgresql', database.url, sql.replaceAll('$marker', marker));

  test('creates in flight when the database stops answer 200 or a 502 STORE_ERROR envelope; the records backend says unavailable', async () => {
    const answers: Answer[] = [];
    let cut: Promise<void> | undefined;
    const lane = async (start: number) => {
      for (let n = start; n < 60; n += 4) {
        answers.push(await create(n));
        if (answers.length === 12) cut ??= proxy.down();
      }
    };
    await Promise.all([0, 1, 2, 3].map(lane));
    await cut;
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(12);
    const failed = answers.filter((answer) => answer.status !== 200);
    expect(failed.length).toBeGreaterThan(0);
    for (const answer of failed) expect(expectError(answer, 502, 'STORE_ERROR')).toBeNull();
    expect(failed.map((answer) => answer.text).join()).not.toMatch(/127\.0\.0\.1|postgres|SELECT|INSERT/i);

    expectError(await recordsStore(records, { id: `${marker}-r`, model: 'm', version: '1', payload: 1 }, randomUUID()), 503, 'unavailable');
    expectError(await call(records, 'GET', `/records/${marker}-0`), 503, 'unavailable');
    expectError(await call(records, 'POST', '/records/query', { body: {} }), 503, 'unavailable');
    expect(await call(records, 'GET', '/ready')).toMatchObject({ status: 503, json: { status: 'not_ready' } });
    expect(await call(core, 'GET', '/admin/ready')).toMatchObject({ status: 503, json: { status: 'not_ready' } });
  });

  test('nothing is half-written: every stored record has its key and every key its record', async () => {
    const orphans = await rows(`
      SELECT r.id FROM records r LEFT JOIN idempotency_keys k ON k.record_id = r.id WHERE r.id LIKE '$marker-%' AND k.record_id IS NULL
      UNION ALL SELECT k.record_id FROM idempotency_keys k LEFT JOIN records r ON r.id = k.record_id WHERE k.key LIKE '$marker-%' AND r.id IS NULL`);
    expect(orphans).toEqual([]);
    const pairs = await rows(`SELECT k.key, k.record_id FROM idempotency_keys k WHERE k.key LIKE '$marker-%'`);
    for (const { key, record_id } of pairs) expect(record_id).toBe(key);
  });

  test('once the database is back the service answers again without a restart; retries complete the run exactly once', async () => {
    await proxy.up();
    expect(await call(records, 'GET', '/ready')).toMatchObject({ status: 200, json: { status: 'ready' } });
    const retried = await Promise.all(Array.from({ length: 60 }, (_, n) => create(n)));
    expect(retried.map((answer) => answer.status)).toEqual(Array(60).fill(200));
    expect(retried.map((answer) => answer.json.id)).toEqual(Array.from({ length: 60 }, (_, n) => `${marker}-${n}`));
    expect(await rows(`SELECT count(*)::int AS n FROM records WHERE id LIKE '$marker-%'`)).toEqual([{ n: 60 }]);
    expect((await call(records, 'GET', `/records/${marker}-59`)).status).toBe(200);
  });
});
