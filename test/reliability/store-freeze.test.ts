import { randomUUID } from 'node:crypto';
import type { ArtifactHost } from '../support/artifact-host.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { PostgresServer } from '../support/postgres-server.js';
import { onDatabase } from '../subgraphs/models/store/support.js';
import { coreCreate, expectError, graphql, recordsModelHost, recordsStore } from '../subgraphs/models/records/support.js';
import { eventually } from '../support/load-loop.js';

/**
 * Issue 4: with PostgreSQL frozen (SIGSTOP), `/admin/ready` hung 100 s and then said "ready": no
 * statement timeout, no bound on a connection that gets no answer. Now every database call is
 * bounded (docs/STORE.md, "Connections and bounded waits"): the probes say "not ready" within
 * DATABASE_PING_TIMEOUT_MS, and calls answer 503 STORE_BUSY (Retry-After) once their own bound has
 * passed. The database stays frozen until every answer is in, so an unbounded wait would run into
 * jest's timeout instead. The bounds are the store's, whatever the process layout: the system runs
 * in the jest process, on a PostgreSQL of the test's own (test/support/postgres-server.ts), never
 * the shared one.
 */
const describePostgres = PostgresServer.available() ? describe : describe.skip;

describePostgres('PostgreSQL frozen (every process stopped with SIGSTOP), then continued', () => {
  let host: ArtifactHost;
  let database: PostgresServer;
  let server: TestSystem;
  const run = randomUUID();
  const bare = '/models/bare/versions/0.1';

  beforeAll(async () => {
    const models = await recordsModelHost();
    host = models.host;
    database = await PostgresServer.create();
    // Short statement bounds so that calls give up soon; the ping keeps its default (2 s).
    server = await startInProcessSystem({ ...NO_AUTH, ...models.env, DATABASE_URL: database.url, DATABASE_STATEMENT_TIMEOUT_MS: '1500', DATABASE_ACQUIRE_TIMEOUT_MS: '1500' });
    // Connections open and idle in the pool, as in a process that has been serving.
    expect((await coreCreate(server.url('core'), { n: 'warm' }, `${run}-warm`, {}, bare)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    database?.thaw();
    await server?.stop();
    await database?.destroy();
    await host?.stop();
  });

  test('the readiness probes answer 503 not_ready while it is frozen, and ready once it answers again', async () => {
    database.freeze();
    try {
      const [core, records] = await Promise.all([call(server.url('core'), 'GET', '/admin/ready'), call(server.url('records'), 'GET', '/ready')]);
      expect(core).toMatchObject({ status: 503, json: { status: 'not_ready', reasons: ['the records store does not answer'] } });
      expect(records).toMatchObject({ status: 503, json: { status: 'not_ready', reasons: ['the records store does not answer'] } });
    } finally {
      database.thaw();
    }
    const ready = await eventually(async () => (await call(server.url('core'), 'GET', '/admin/ready')).status === 200);
    expect(ready).toBe(true);
  });

  test('creates, reads and GraphQL answer 503 STORE_BUSY with Retry-After while it is frozen; a retry stores each create once', async () => {
    database.freeze();
    try {
      const [core, records, read, graph] = await Promise.all([
        coreCreate(server.url('core'), { n: 'core' }, `${run}-core`, {}, bare),
        recordsStore(server.url('records'), { id: `${run}-records`, model: 'bare', version: '0.1', payload: { n: 'records' } }, `${run}-records`),
        call(server.url('records'), 'GET', `/records/${run}-warm`),
        graphql(server.url('gateway'), `{ record(id: "${run}-warm") { id } }`),
      ]);
      expectError(core, 503, 'STORE_BUSY');
      expectError(records, 503, 'unavailable');
      expectError(read, 503, 'unavailable');
      for (const answer of [core, records, read]) expect(answer.headers.get('retry-after')).toBe('1');
      expect(graph.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(['STORE_BUSY']);
    } finally {
      database.thaw();
    }
    const retried = await eventually(async () => {
      const answers = [
        await coreCreate(server.url('core'), { n: 'core' }, `${run}-core`, {}, bare),
        await recordsStore(server.url('records'), { id: `${run}-records`, model: 'bare', version: '0.1', payload: { n: 'records' } }, `${run}-records`),
      ];
      return answers.every((answer) => answer.status === 200) ? answers : null;
    });
    expect(retried).not.toBeNull();
    const keys = await onDatabase('postgresql', database.url, `SELECT key FROM idempotency_keys WHERE key LIKE '${run}-%' ORDER BY key`);
    expect(keys.map((row) => row.key)).toEqual([`${run}-core`, `${run}-records`, `${run}-warm`]);
  });
});
