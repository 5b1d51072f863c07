import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@libsql/client';
import { diffSchemas, latestSnapshot, providerSchema } from '../../../../scripts/prisma-schemas.mjs';
import { loadMigrations, migrate } from '../../../../database/migrator.js';
import { databaseLocation } from '../../../../database/location.js';
import { canonicalJson } from '../../../../kernel/records/canonical-json.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { payloadNumbers } from '../../../../subgraphs/models/domain/records/record-numbers.js';
import { backendsUnderTest, createDatabase, migratedBefore, onDatabase } from './support.js';
import type { Backend, TestDatabase } from './support.js';

const backends = await backendsUnderTest();

describe.each(backends)('migrations on %s', (backend) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createDatabase(backend);
  });
  afterEach(async () => {
    await database.drop();
  });

  test('a fresh database gets every migration; a second start changes nothing', async () => {
    const names = (await loadMigrations(backend)).map((migration) => migration.name);
    expect(names.length).toBeGreaterThan(0);

    expect(await migrate(databaseLocation(database.url))).toEqual(names);
    const migrated = await catalog(backend, database.url);
    const history = await onDatabase(backend, database.url, 'SELECT name, checksum, applied_at FROM _store_migrations ORDER BY name');

    expect(await migrate(databaseLocation(database.url))).toEqual([]);
    expect(await catalog(backend, database.url)).toEqual(migrated);
    expect(await onDatabase(backend, database.url, 'SELECT name, checksum, applied_at FROM _store_migrations ORDER BY name')).toEqual(history);
  });

  test('the migrated database has exactly the tables, columns, indexes and keys schema.prisma describes', async () => {
    await migrate(databaseLocation(database.url));
    // Reference: what Prisma's schema engine creates from schema.prisma on an empty database.
    const reference = await createDatabase(backend);
    try {
      await onDatabase(backend, reference.url, await diffSchemas(backend, null, providerSchema(backend)));
      expect(await catalog(backend, database.url)).toEqual(await catalog(backend, reference.url));
    } finally {
      await reference.drop();
    }
  });

  test('schema.prisma has no change that lacks a migration', async () => {
    expect(await diffSchemas(backend, latestSnapshot(backend), providerSchema(backend))).toBe('');
  });

  test('record_numbers starts with the numbers of the records stored before it, exactly as the store writes them', async () => {
    const migrations = await loadMigrations(backend);
    const index = migrations.findIndex((migration) => migration.name.endsWith('_record_numbers'));
    for (const migration of migrations.slice(0, index)) await onDatabase(backend, database.url, migration.sql);
    const payload: JsonValue = {
      total: 2.5,
      big: 1e300,
      tiny: 0.1 + 0.2,
      'not nameable': 1,
      'k-0_9': { '0': -4, deep: [[1, 'x', { z: 7 }], true, null] },
      items: [{ mass: 12 }, { mass: -0.5, 'x.y': 3 }],
    };
    const instant = backend === 'postgresql' ? "'2025-01-01T00:00:00Z'" : '1735689600000';
    const text = canonicalJson(payload).replaceAll("'", "''");
    await onDatabase(
      backend,
      database.url,
      `INSERT INTO records (id, model, version, payload, created_by_sub, tenant_id, created_at, updated_at)
      VALUES ('before', 'm', '1', '${text}', 'alice', NULL, ${instant}, ${instant}); INSERT INTO records (id, model, version, payload, created_by_sub, tenant_id, created_at, updated_at)
      VALUES ('bare', 'm', '1', '5', 'alice', NULL, ${instant}, ${instant})`,
    );
    await onDatabase(backend, database.url, migrations[index]!.sql);
    const rows = await onDatabase(backend, database.url, 'SELECT record_id, path, value FROM record_numbers ORDER BY path');
    const expected = payloadNumbers(payload).map(({ path, value }) => ({ record_id: 'before', path, value }));
    expect(rows).toEqual(expected.sort((a, b) => (a.path < b.path ? -1 : 1)));
  });

  test('record namespaces: the records stored before are in their tenant, with every key, grant and number kept', async () => {
    const pending = await migratedBefore(backend, database.url, 'record_namespaces');
    const instant = backend === 'postgresql' ? "'2025-01-01T00:00:00Z'" : '1735689600000';
    await onDatabase(
      backend,
      database.url,
      `
      INSERT INTO records (id, model, version, payload, created_by_sub, tenant_id, created_at, updated_at)
        VALUES ('in-acme', 'm', '1', '{"n":1}', 'alice', 'acme', ${instant}, ${instant}), ('no-tenant', 'm', '1', '{"n":2}', 'lou', NULL, ${instant}, ${instant});
      INSERT INTO idempotency_keys (scope, key, fingerprint, record_id, created_at, expires_at)
        VALUES ('["alice","acme"]', 'k1', 'f1', 'in-acme', ${instant}, ${instant}), ('["lou",null]', 'k2', 'f2', 'no-tenant', ${instant}, ${instant});
      INSERT INTO record_grants (record_id, grantee_kind, grantee, created_at) VALUES ('in-acme', 'subject', 'bob', ${instant});
      INSERT INTO record_numbers (record_id, path, value) VALUES ('in-acme', 'n', 1), ('no-tenant', 'n', 2);`,
    );

    expect(await migrate(databaseLocation(database.url))).toEqual(pending);
    const rows = (sql: string) => onDatabase(backend, database.url, sql);
    expect(await rows('SELECT id, namespace, tenant_id FROM records ORDER BY id')).toEqual([
      { id: 'in-acme', namespace: 'acme', tenant_id: 'acme' },
      { id: 'no-tenant', namespace: '', tenant_id: null },
    ]);
    expect(await rows('SELECT key, record_id, record_namespace FROM idempotency_keys ORDER BY key')).toEqual([
      { key: 'k1', record_id: 'in-acme', record_namespace: 'acme' },
      { key: 'k2', record_id: 'no-tenant', record_namespace: '' },
    ]);
    expect(await rows('SELECT record_id, record_namespace, grantee FROM record_grants')).toEqual([{ record_id: 'in-acme', record_namespace: 'acme', grantee: 'bob' }]);
    expect(await rows('SELECT record_id, record_namespace, value FROM record_numbers ORDER BY value')).toEqual([
      { record_id: 'in-acme', record_namespace: 'acme', value: 1 },
      { record_id: 'no-tenant', record_namespace: '', value: 2 },
    ]);
  });

  test('record tie_break: the records stored before each draw one, and keep their grants and numbers', async () => {
    const pending = await migratedBefore(backend, database.url, 'record_tie_break');
    const instant = backend === 'postgresql' ? "'2025-01-01T00:00:00Z'" : '1735689600000';
    await onDatabase(
      backend,
      database.url,
      `
      INSERT INTO records (id, namespace, model, version, payload, created_by_sub, tenant_id, created_at, updated_at)
        VALUES ('same', 'acme', 'm', '1', '{"n":1}', 'alice', 'acme', ${instant}, ${instant}), ('same', 'globex', 'm', '1', '{"n":2}', 'bob', 'globex', ${instant}, ${instant});
      INSERT INTO record_grants (record_id, record_namespace, grantee_kind, grantee, created_at) VALUES ('same', 'globex', 'subject', 'alice', ${instant});
      INSERT INTO record_numbers (record_id, record_namespace, path, value) VALUES ('same', 'acme', 'n', 1), ('same', 'globex', 'n', 2);`,
    );

    expect(await migrate(databaseLocation(database.url))).toEqual(pending);
    const rows = (sql: string) => onDatabase(backend, database.url, sql);
    const draws = (await rows('SELECT tie_break FROM records')).map(({ tie_break }) => Number(tie_break));
    expect(draws.every((draw) => Number.isSafeInteger(draw) && draw >= 0)).toBe(true);
    expect(new Set(draws).size).toBe(2);
    expect(await rows('SELECT record_namespace FROM record_grants')).toEqual([{ record_namespace: 'globex' }]);
    expect(await rows('SELECT record_namespace, value FROM record_numbers ORDER BY value')).toEqual([
      { record_namespace: 'acme', value: 1 },
      { record_namespace: 'globex', value: 2 },
    ]);
  });

  test('PostgreSQL compresses new payloads with lz4 (this server has it)', async () => {
    if (backend !== 'postgresql') return;
    await migrate(databaseLocation(database.url));
    expect(await onDatabase(backend, database.url, "SELECT attcompression FROM pg_attribute WHERE attrelid = 'records'::regclass AND attname = 'payload'")).toEqual([{ attcompression: 'l' }]);
  });

  test('a migration edited after it was applied stops the start with STORE_ERROR', async () => {
    await migrate(databaseLocation(database.url));
    await onDatabase(backend, database.url, `UPDATE _store_migrations SET checksum = 'edited'`);
    await expect(migrate(databaseLocation(database.url))).rejects.toMatchObject({
      code: 'STORE_ERROR',
      message: expect.stringMatching(/^migration \S+ was changed after it was applied$/),
    });
  });
});

const onPostgres = backends.includes('postgresql') ? describe : describe.skip;

onPostgres('migrators starting at once on one PostgreSQL database', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createDatabase('postgresql');
  });
  afterEach(async () => {
    await database.drop();
  });

  test('apply each migration once, and neither fails', async () => {
    const names = (await loadMigrations('postgresql')).map((migration) => migration.name);
    const runs = await Promise.all([1, 2, 3].map(() => migrate(databaseLocation(database.url))));
    expect(runs.flat().sort()).toEqual(names);
    expect(await onDatabase('postgresql', database.url, 'SELECT name FROM _store_migrations ORDER BY name')).toEqual(names.map((name) => ({ name })));
  });
});

describe("a migrator that finds a new SQLite file in another connection's write (the workers of WORKERS > 1)", () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'cerise-migrators-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  // Switching to WAL while another connection writes is SQLITE_BUSY at once, whatever the busy
  // timeout: two workers starting on one new file failed one start in 30 to 60 that way.
  test('waits for the write to end, then applies every migration', async () => {
    const url = `file:${path.join(folder, 'records.db')}`;
    const other = createClient({ url });
    try {
      await other.execute('CREATE TABLE other_work (n INTEGER)');
      const write = await other.transaction('write');
      await write.execute('INSERT INTO other_work VALUES (1)');
      setTimeout(() => void write.commit(), 300);
      const names = (await loadMigrations('sqlite')).map((migration) => migration.name);
      expect(await migrate(databaseLocation(url))).toEqual(names);
      expect(await onDatabase('sqlite', url, 'PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    } finally {
      other.close();
    }
  });
});

test('an unreachable PostgreSQL fails the migration with STORE_ERROR and no driver text', async () => {
  const failure = migrate(databaseLocation('postgresql://someone:secret@127.0.0.1:1/records'));
  await expect(failure).rejects.toMatchObject({ code: 'STORE_ERROR', message: 'records store migration failed' });
});

/** Tables with their columns, indexes and constraints, as the database describes them. */
async function catalog(backend: Backend, url: string): Promise<unknown> {
  return backend === 'sqlite' ? sqliteCatalog(url) : postgresCatalog(url);
}

async function sqliteCatalog(url: string): Promise<unknown> {
  const tables = await onDatabase('sqlite', url, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_store_migrations' ORDER BY name`);
  return Promise.all(
    tables.map(async ({ name }) => {
      const indexes = await onDatabase('sqlite', url, `PRAGMA index_list("${name}")`);
      return {
        name,
        columns: await onDatabase('sqlite', url, `PRAGMA table_info("${name}")`),
        foreignKeys: await onDatabase('sqlite', url, `PRAGMA foreign_key_list("${name}")`),
        indexes: await Promise.all(
          indexes
            .sort((a, b) => String(a.name).localeCompare(String(b.name)))
            .map(async ({ name: index, unique, origin, partial }) => ({
              name: index,
              unique,
              origin,
              partial,
              columns: await onDatabase('sqlite', url, `PRAGMA index_info("${index}")`),
            })),
        ),
      };
    }),
  );
}

async function postgresCatalog(url: string): Promise<unknown> {
  const ours = `<> '_store_migrations'`;
  return {
    columns: await onDatabase(
      'postgresql',
      url,
      `SELECT table_name, column_name, data_type, is_nullable, column_default, datetime_precision
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name ${ours}
        ORDER BY table_name, column_name`,
    ),
    indexes: await onDatabase('postgresql', url, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename ${ours} ORDER BY indexname`),
    constraints: await onDatabase(
      'postgresql',
      url,
      `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text ${ours}
        ORDER BY conname`,
    ),
  };
}
