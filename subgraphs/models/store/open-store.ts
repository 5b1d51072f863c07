import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaPg } from '@prisma/adapter-pg';
import { DomainError } from '../../../kernel/errors.js';
import { migrate } from './migrator.js';
import { type PoolObserver, cancellableRead, openPool } from './postgres-pool.js';
import { SqlRecordStore } from './sql-record-store.js';
import type { RowReader, StoreClient } from './sql-record-store.js';
import type { RecordStore } from '../domain/records/record-store.js';
import { postgresqlDialect } from './sql/postgresql-dialect.js';
import { sqliteDialect } from './sql/sqlite-dialect.js';
import { storeFailure } from './store-error.js';
import { DEFAULT_STORE_LIMITS, type StoreLimits } from './store-limits.js';

export interface StoreOptions {
  /** How long an idempotency key is remembered (IDEMPOTENCY_TTL_SECS). */
  idempotencyTtlSecs?: number;
  /** Connections and bounded waits (DATABASE_POOL_SIZE, DATABASE_*_TIMEOUT_MS). */
  limits?: StoreLimits;
  /** Told of each migration applied at opening (for the start-up log). */
  onMigrationApplied?: (name: string, ms: number) => void;
  /** Told how the PostgreSQL pool does (for the metrics). */
  pool?: PoolObserver;
}

const DEFAULT_IDEMPOTENCY_TTL_SECS = 86_400;

/**
 * The records store for DATABASE_URL: `file:<path>` is an embedded SQLite database (its directory is
 * created), `postgresql://…` or `postgres://…` a PostgreSQL one. Pending migrations are applied
 * before the store is handed out. Throws STORE_ERROR when the database cannot be reached or
 * migrated; the message never repeats the URL (it may hold a password).
 */
export async function openRecordStore(databaseUrl: string, options: StoreOptions = {}): Promise<RecordStore> {
  const ttlMs = (options.idempotencyTtlSecs ?? DEFAULT_IDEMPOTENCY_TTL_SECS) * 1000;
  const limits = options.limits ?? DEFAULT_STORE_LIMITS;
  const transactionOptions = transactionBounds(limits);
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    await migrate(postgresqlDialect.name, databaseUrl, options.onMigrationApplied);
    const { PrismaClient } = await import('../../../prisma/generated/postgresql/client.js');
    // One pool: Prisma's adapter writes through it, and the translated queries read through it.
    const pool = openPool(databaseUrl, limits, options.pool);
    const adapter = new PrismaPg(pool, { disposeExternalPool: true });
    const readRows: RowReader = (sql, values, budget) => cancellableRead(pool, databaseUrl, sql, values, budget.signal);
    return new SqlRecordStore(postgresqlDialect, new PrismaClient({ adapter, transactionOptions }), readRows, { idempotencyTtlMs: ttlMs, pingTimeoutMs: limits.pingTimeoutMs });
  }
  if (databaseUrl.startsWith('file:')) {
    const url = `file:${await prepareSqliteFile(databaseUrl)}`;
    await migrate(sqliteDialect.name, url, options.onMigrationApplied);
    const { PrismaClient } = await import('../../../prisma/generated/sqlite/client.js');
    // Epoch milliseconds: instants compare as numbers in the translated queries. A statement waits
    // for another process's write lock (SQLite's busy timeout) as long as a statement may take.
    const adapter = new PrismaLibSql({ url, timeout: limits.statementTimeoutMs }, { timestampFormat: 'unixepoch-ms' });
    // Same schema, same client shape (see StoreClient).
    const client = new PrismaClient({ adapter, transactionOptions }) as unknown as StoreClient;
    // A statement is not cancelled here (Prisma's libsql adapter gives no interrupt): none starts past
    // the request's deadline, and the answer does not wait for one that runs (sql-record-store.ts).
    const readRows: RowReader = (sql, values) => client.$queryRawUnsafe(sql, ...values);
    return new SqlRecordStore(sqliteDialect, client, readRows, { idempotencyTtlMs: ttlMs, pingTimeoutMs: limits.pingTimeoutMs });
  }
  throw new DomainError('STORE_ERROR', 'the records store URL must start with file:, postgresql:// or postgres://');
}

/**
 * Prisma waits for a transaction to start (for a connection of the pool) up to `maxWait`, 2 s by
 * default, which a burst on a busy machine exceeded (P2028, answered 502 before); here the same
 * bound as every other wait for a connection. A whole transaction gets the time of one statement.
 * (On SQLite the driver is synchronous: transactions take their turns without the event loop
 * waiting, so the busy timeout is the bound that matters there.)
 */
function transactionBounds(limits: StoreLimits): { maxWait: number; timeout: number } {
  return { maxWait: limits.acquireTimeoutMs, timeout: limits.statementTimeoutMs };
}

/** The absolute path of `file:<path>` (relative to the working directory), its directory created. */
async function prepareSqliteFile(databaseUrl: string): Promise<string> {
  const location = databaseUrl
    .slice('file:'.length)
    .replace(/^\/\/(?=\/)/, '')
    .replace(/\?.*$/, '');
  if (location === '') throw new DomainError('STORE_ERROR', 'the records store URL file: names no file');
  const file = path.resolve(location);
  try {
    await mkdir(path.dirname(file), { recursive: true });
  } catch (error) {
    throw storeFailure('the records store directory cannot be created', error);
  }
  return file;
}
