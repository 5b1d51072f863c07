import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Backend } from '../../../../database/location.js';

/*
 * The databases a test runs on, without the store's code: test/support/system.ts needs them for
 * every system it starts, built or in process, and a suite that starts only built servers should
 * not load the store, its migrations and libsql under jest's loader (support.ts re-exports them).
 */

export type { Backend };

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

/** A new PostgreSQL database named `<prefix>_<uuid>`; `drop` removes it, connections and all. */
export async function createPostgresDatabase(prefix = 'records_store_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '')}`;
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
