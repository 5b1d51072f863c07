import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ArtifactHost } from '../../../support/artifact-host.js';
import { NO_AUTH, type Answer, startTestSystem } from '../../../support/system.js';
import { type ServerProcess, spawnServer } from '../../../support/server-process.js';
import { type Backend, createDatabase, onDatabase, postgresReachable, type TestDatabase } from '../store/support.js';
import { coreCreate, recordsModelHost, widget } from './support.js';

/**
 * The records store as the running system uses it: migrations at start-up, concurrency across two
 * processes of the built server (`npm run build` first).
 */
const postgres = await postgresReachable();
const describePostgres = postgres ? describe : describe.skip;

let host: ArtifactHost;
let modelsEnv: Record<string, string>;
beforeAll(async () => {
  const models = await recordsModelHost();
  host = models.host;
  modelsEnv = models.env;
});
afterAll(async () => {
  await host?.stop();
});

const startOn = (databaseUrl: string) => startTestSystem({ ...NO_AUTH, ...modelsEnv, DATABASE_URL: databaseUrl });

const TABLES: Record<Backend, string> = {
  sqlite: "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name",
  postgresql: "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' UNION ALL SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY name",
};
const HISTORY = 'SELECT name, checksum, applied_at FROM _store_migrations ORDER BY name';

/** A fresh SQLite file of a directory the test owns (startTestSystem's own one goes with each start). */
async function freshDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'postgresql') return createDatabase('postgresql');
  const dir = await mkdtemp(path.join(tmpdir(), 'records-start-'));
  return { url: `file:${path.join(dir, 'records.db')}`, drop: () => rm(dir, { recursive: true, force: true }) };
}

describe.each(['sqlite'] as Backend[])('start-up on %s', (backend) => {
  test('a fresh database gets the schema on first start; a second start changes nothing', async () => {
    const database = await freshDatabase(backend);
    try {
      const first = await startOn(database.url);
      const created = await coreCreate(first.url('core'), widget(), randomUUID());
      await first.stop();
      expect(created.status).toBe(200);
      const tables = await onDatabase(backend, database.url, TABLES[backend]);
      const history = await onDatabase(backend, database.url, HISTORY);
      expect(tables.map((row) => row.name)).toEqual(expect.arrayContaining(['_store_migrations', 'records', 'idempotency_keys', 'record_grants']));
      expect(history.length).toBeGreaterThan(0);

      const second = await startOn(database.url);
      await second.stop();
      expect(await onDatabase(backend, database.url, TABLES[backend])).toEqual(tables);
      expect(await onDatabase(backend, database.url, HISTORY)).toEqual(history);
      expect(await onDatabase(backend, database.url, 'SELECT id FROM records')).toEqual([{ id: created.json.id }]);
    } finally {
      await database.drop();
    }
  });
});

/**
 * On PostgreSQL the start-up's two starts are the two processes: the first on a fresh database (its
 * workers' migrators meet there), the second beside it on the migrated one; then both take requests.
 */
describePostgres('two server processes sharing one PostgreSQL database', () => {
  const backend: Backend = 'postgresql';
  let database: TestDatabase;
  const servers: ServerProcess[] = [];
  /** What the database held after the first start (and a create), and after the second. */
  type Rows = Array<Record<string, unknown>>;
  let first: { tables: Rows; history: Rows };
  let second: { tables: Rows; history: Rows; records: Rows };
  let created: Answer;
  beforeAll(async () => {
    database = await createDatabase('postgresql');
    const start = async () => servers.push(await spawnServer({ ...NO_AUTH, ...modelsEnv, DATABASE_URL: database.url }));
    const look = async () => ({ tables: await onDatabase(backend, database.url, TABLES[backend]), history: await onDatabase(backend, database.url, HISTORY) });
    await start();
    created = await coreCreate(servers[0]!.url('core'), widget(), randomUUID());
    first = await look();
    await start();
    second = { ...(await look()), records: await onDatabase(backend, database.url, 'SELECT id FROM records') };
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await database?.drop();
  });

  test('start-up: a fresh database gets the schema on first start; a second start changes nothing', () => {
    expect(created.status).toBe(200);
    expect(first.tables.map((row) => row.name)).toEqual(expect.arrayContaining(['_store_migrations', 'records', 'idempotency_keys', 'record_grants']));
    expect(first.history.length).toBeGreaterThan(0);
    expect(second.tables).toEqual(first.tables);
    expect(second.history).toEqual(first.history);
    expect(second.records).toEqual([{ id: created.json.id }]);
  });

  /** 50 creates fired at once, alternating between the two processes. */
  function fireAtOnce(request: (core: string) => Promise<Answer>): Promise<Answer[]> {
    return Promise.all(Array.from({ length: 50 }, (_, n) => request(servers[n % 2]!.url('core'))));
  }

  const countOf = async (id: string) => (await onDatabase('postgresql', database.url, `SELECT count(*)::int AS n FROM records WHERE id = '${id}'`))[0]!.n;

  test('50 identical requests with one key: exactly one record; every answer 200 with its id or 409, none 5xx', async () => {
    const key = randomUUID();
    const payload = widget();
    const answers = await fireAtOnce((core) => coreCreate(core, payload, key));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    const succeeded = answers.filter((answer) => answer.status === 200);
    expect(succeeded.length).toBeGreaterThan(0);
    expect(new Set(succeeded.map((answer) => answer.json.id))).toEqual(new Set([payload.id]));
    expect(succeeded.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await countOf(payload.id as string)).toBe(1);
  });

  test('50 requests with different keys and one payload id: one record, 49 × 409 RECORD_CONFLICT', async () => {
    const payload = widget();
    const answers = await fireAtOnce((core) => coreCreate(core, payload, randomUUID()));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused.map((answer) => [answer.status, answer.json.code])).toEqual(Array(49).fill([409, 'RECORD_CONFLICT']));
    expect(await countOf(payload.id as string)).toBe(1);
  });
});
