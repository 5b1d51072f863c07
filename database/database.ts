import type pg from 'pg';
import type { SqlBasics } from './dialect.js';
import type { DatabaseLimits } from './limits.js';
import { type Backend, type DatabaseLocation, databaseLocation } from './location.js';
import type { PoolObserver } from './postgres-pool.js';

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
  // Each database's driver is loaded where it is used: a process on SQLite never loads node-postgres.
  if (location.kind === 'postgresql') return (await import('./postgresql.js')).postgresDatabase(location, options);
  return (await import('./sqlite.js')).sqliteDatabase(location, options.limits);
}
