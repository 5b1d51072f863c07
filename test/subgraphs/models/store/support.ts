import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

/** Each backend's SQL dialect, as the store opened on it speaks it. */
export const DIALECTS: Record<Backend, SqlDialect> = { sqlite: sqliteDialect, postgresql: postgresqlDialect };

/** The PostgreSQL server the tests create (and drop) their own databases on. */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/**
 * Whether PostgreSQL answers. When it does not, the PostgreSQL half of the store tests is skipped
 * with a message, except under CI=true, where it is a failure. A busy machine (a suite beside
 * filling its pools, a build) can hold a connection past a few seconds or find every slot taken for
 * a moment, so "unreachable" is only said after several tries over some 20 seconds.
 */
export async function postgresReachable(): Promise<boolean> {
  let failure: Error | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1000));
    failure = await connectOnce();
    if (!failure) return true;
  }
  if (process.env.CI === 'true') throw new Error(`PostgreSQL unreachable under CI at ${POSTGRES_ADMIN_URL}: ${failure!.message}`, { cause: failure });
  console.warn(`skipping the PostgreSQL store tests: ${POSTGRES_ADMIN_URL} unreachable (${failure!.message})`);
  return false;
}

async function connectOnce(): Promise<Error | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.end();
    return undefined;
  } catch (error) {
    await client.end().catch(() => undefined);
    return error as Error;
  }
}

/** SQLite always; PostgreSQL when reachable. */
export async function backendsUnderTest(): Promise<Backend[]> {
  return (await postgresReachable()) ? ['sqlite', 'postgresql'] : ['sqlite'];
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new empty database: a file in a temporary directory, or a PostgreSQL database of its own. */
export function createDatabase(backend: Backend): Promise<TestDatabase> {
  return backend === 'sqlite' ? createSqliteDatabase() : createPostgresDatabase();
}

async function createSqliteDatabase(): Promise<TestDatabase> {
  const dir = await mkdtemp(path.join(tmpdir(), 'records-store-'));
  return {
    url: `file:${path.join(dir, 'records.db')}`,
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `records_store_test_${randomUUID().replace(/-/g, '')}`;
  await onAdmin(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function onAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

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
