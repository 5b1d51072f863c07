import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Client as SqliteClient, type InStatement, createClient } from '@libsql/client';
import pg from 'pg';
import { SQL_BASICS, type SqlBasics } from './dialect.js';
import { storeFailure } from './failure.js';
import type { DatabaseLimits } from './limits.js';
import { type Backend, type DatabaseLocation, databaseLocation } from './location.js';
import { migrate } from './migrator.js';
import { type PoolObserver, cancellableRead, openPool } from './postgres-pool.js';

export type Row = Record<string, unknown>;

/** What runs statements: the database, or one transaction of it. Placeholders are the dialect's own (`$1` or `?`). */
export interface Session {
  query<T = Row>(sql: string, values?: readonly unknown[]): Promise<T[]>;
}

export interface TransactionOptions {
  /**
   * An advisory lock key (PostgreSQL) the transaction holds, so that the writers of one table take
   * turns across processes and replicas; on SQLite every write transaction takes the database's
   * write lock anyway.
   */
  turnsBy?: string;
}

interface DatabaseBase extends Session {
  readonly kind: Backend;
  readonly location: DatabaseLocation;
  readonly limits: DatabaseLimits;
  /** Placeholders and the like, as this database writes them. */
  readonly sql: SqlBasics;
  /**
   * A read that PostgreSQL stops when `signal` aborts (the request's deadline: the server ends the
   * statement, its connection is free again at once). SQLite cannot interrupt one: it runs.
   */
  read<T = Row>(sql: string, values: readonly unknown[], signal?: AbortSignal): Promise<T[]>;
  /** `work` in one write transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (session: Session) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Applies the committed migrations not yet applied (migrator.ts); `onApplied` hears each. */
  migrate(onApplied?: (name: string, ms: number) => void): Promise<string[]>;
  close(): Promise<void>;
}

export interface PostgresDatabase extends DatabaseBase {
  readonly kind: 'postgresql';
  /** The bounded pool every statement runs on (postgres-pool.ts); the records store hands it to Prisma's adapter. */
  readonly pool: pg.Pool;
  /** A session of its own outside the pool (a listener holds one for good), bounded like the pool's. */
  session(applicationName: string): pg.Client;
}

export interface SqliteDatabase extends DatabaseBase {
  readonly kind: 'sqlite';
}

/** The records database, PostgreSQL or SQLite, as everything that stores in it sees it: the records store, usage, the registry's announcements. */
export type Database = PostgresDatabase | SqliteDatabase;

export interface DatabaseOptions {
  /** Connections and bounded waits (DATABASE_POOL_SIZE, DATABASE_*_TIMEOUT_MS). */
  limits: DatabaseLimits;
  /** Told how the PostgreSQL pool does (the metrics). */
  pool?: PoolObserver;
}

/**
 * Opens the database DATABASE_URL names: a pool of `limits.poolSize` connections on PostgreSQL; on
 * SQLite the file's directory is created and a connection opened at the first statement. Each
 * opener has its own pool, so that one kind of work (usage's writes) never waits behind another
 * (the records' requests). Throws STORE_ERROR when the file's directory cannot be created; the
 * message never repeats the URL (it may hold a password).
 */
export async function openDatabase(url: string, options: DatabaseOptions): Promise<Database> {
  const location = databaseLocation(url);
  return location.kind === 'postgresql' ? postgresDatabase(location, options) : sqliteDatabase(location, options.limits);
}

function postgresDatabase(location: Extract<DatabaseLocation, { kind: 'postgresql' }>, options: DatabaseOptions): PostgresDatabase {
  const { limits } = options;
  const pool = openPool(location.url, limits, options.pool);
  const query = async <T>(sql: string, values: readonly unknown[] = []) => (await pool.query(sql, values as unknown[])).rows as T[];
  return {
    kind: 'postgresql',
    location,
    limits,
    sql: SQL_BASICS.postgresql,
    pool,
    query,
    read: (sql, values, signal) => cancellableRead(pool, location.url, sql, values as unknown[], signal),
    async transaction(work, transactionOptions = {}) {
      const client = await pool.connect();
      let failure: Error | undefined;
      try {
        await client.query('BEGIN');
        if (transactionOptions.turnsBy !== undefined) await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [transactionOptions.turnsBy]);
        const done = await work({ query: async <T>(sql: string, values: readonly unknown[] = []) => (await client.query(sql, values as unknown[])).rows as T[] });
        await client.query('COMMIT');
        return done;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: Error) => (failure = rollback));
        throw error;
      } finally {
        client.release(failure);
      }
    },
    session: (applicationName) =>
      new pg.Client({
        connectionString: location.url,
        application_name: applicationName,
        connectionTimeoutMillis: limits.acquireTimeoutMs,
        query_timeout: limits.pingTimeoutMs,
        keepAlive: true,
      }),
    migrate: (onApplied) => migrate(location, onApplied),
    close: () => pool.end(),
  };
}

async function sqliteDatabase(location: Extract<DatabaseLocation, { kind: 'sqlite' }>, limits: DatabaseLimits): Promise<SqliteDatabase> {
  try {
    await mkdir(path.dirname(location.file), { recursive: true });
  } catch (error) {
    throw storeFailure('the records store directory cannot be created', error);
  }
  let client: SqliteClient | undefined;
  // A statement waits for another process's write lock (SQLite's busy timeout) as long as a statement may take.
  const connection = () => (client ??= createClient({ url: location.url, timeout: limits.statementTimeoutMs }));
  const statement = (sql: string, values: readonly unknown[]): InStatement => ({ sql, args: values as never });
  const query = async <T>(sql: string, values: readonly unknown[] = []) => (await connection().execute(statement(sql, values))).rows as unknown as T[];
  return {
    kind: 'sqlite',
    location,
    limits,
    sql: SQL_BASICS.sqlite,
    query,
    read: (sql, values) => query(sql, values),
    async transaction(work) {
      // BEGIN IMMEDIATE: the write lock from the transaction's first statement, so writers take turns from their first read.
      const transaction = await connection().transaction('write');
      try {
        const done = await work({ query: async <T>(sql: string, values: readonly unknown[] = []) => (await transaction.execute(statement(sql, values))).rows as unknown as T[] });
        await transaction.commit();
        return done;
      } finally {
        transaction.close(); // rolls back unless committed
      }
    },
    migrate: (onApplied) => migrate(location, onApplied),
    close: async () => client?.close(),
  };
}
