import { createClient } from '@libsql/client';
import pg from 'pg';
import type { SqlDialect } from '../../../../subgraphs/models/store/sql/sql-dialect.js';
import type { Backend } from '../../../../database/location.js';
import { openDatabase } from '../../../../database/database.js';
import { DEFAULT_DATABASE_LIMITS } from '../../../../database/limits.js';
import { type StoreOptions, openRecordStore } from '../../../../subgraphs/models/store/open-store.js';
import type { RecordStore } from '../../../../subgraphs/models/domain/records/record-store.js';
import { postgresqlDialect } from '../../../../subgraphs/models/store/sql/postgresql-dialect.js';
import { sqliteDialect } from '../../../../subgraphs/models/store/sql/sqlite-dialect.js';
import { loadMigrations } from '../../../../database/migrator.js';

export type { Backend };
export { POSTGRES_ADMIN_URL, type TestDatabase, backendsUnderTest, createDatabase, postgresReachable } from './databases.js';

/** Each backend's SQL dialect, as the store opened on it speaks it. */
export const DIALECTS: Record<Backend, SqlDialect> = { sqlite: sqliteDialect, postgresql: postgresqlDialect };

/** Runs SQL (several statements allowed) directly on a test database, or reads rows from it (with bound `values`). */
export async function onDatabase(backend: Backend, url: string, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (backend === 'sqlite') {
    const client = createClient({ url });
    try {
      if (!/^\s*(SELECT|PRAGMA)/i.test(sql)) {
        await client.executeMultiple(sql);
        return [];
      }
      const { rows, columns } = await client.execute({ sql, args: values as never });
      return rows.map((row) => Object.fromEntries(columns.map((column, i) => [column, row[i]])));
    } finally {
      client.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(sql, values);
    return Array.isArray(result) ? [] : result.rows;
  } finally {
    await client.end();
  }
}

/**
 * A database at the version before the migration whose name ends with `_<name>`, as the migrator
 * left it: every earlier migration applied and recorded in `_store_migrations`. Returns the names
 * of that migration and those after it, what the next `migrate` applies.
 */
export async function migratedBefore(backend: Backend, url: string, name: string): Promise<string[]> {
  const migrations = await loadMigrations(backend);
  const index = migrations.findIndex((migration) => migration.name.endsWith(`_${name}`));
  if (index < 0) throw new Error(`no migration *_${name}`);
  for (const migration of migrations.slice(0, index)) await onDatabase(backend, url, migration.sql);
  await onDatabase(
    backend,
    url,
    `CREATE TABLE _store_migrations (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL);
    ${migrations
      .slice(0, index)
      .map((m) => `INSERT INTO _store_migrations VALUES ('${m.name}', '${m.checksum}', '2025-01-01');`)
      .join('\n')}`,
  );
  return migrations.slice(index).map((m) => m.name);
}

/** The records store on the database at `url`, as the system opens it (server/system.ts) with the default limits. */
export async function openStoreAt(url: string, options?: StoreOptions): Promise<RecordStore> {
  return openRecordStore(await openDatabase(url, { limits: DEFAULT_DATABASE_LIMITS }), options);
}
