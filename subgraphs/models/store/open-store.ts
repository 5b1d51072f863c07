import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Database } from '../../../database/database.js';
import { SqlRecordStore } from './sql-record-store.js';
import type { RowReader, StoreClient } from './sql-record-store.js';
import type { RecordStore } from '../domain/records/record-store.js';
import { postgresqlDialect } from './sql/postgresql-dialect.js';
import { sqliteDialect } from './sql/sqlite-dialect.js';
import type { DatabaseLimits } from '../../../database/limits.js';

export interface StoreOptions {
  /** How long an idempotency key is remembered (IDEMPOTENCY_TTL_SECS). */
  idempotencyTtlSecs?: number;
  /** Told of each migration applied at opening (for the start-up log). */
  onMigrationApplied?: (name: string, ms: number) => void;
}

const DEFAULT_IDEMPOTENCY_TTL_SECS = 86_400;

/**
 * The records store on the records database (database/database.ts), which it takes over: closing the
 * store closes the database. Pending migrations are applied before the store is handed out. Throws
 * STORE_ERROR when the database cannot be reached or migrated; the message never repeats the URL.
 */
export async function openRecordStore(database: Database, options: StoreOptions = {}): Promise<RecordStore> {
  const times = { idempotencyTtlMs: (options.idempotencyTtlSecs ?? DEFAULT_IDEMPOTENCY_TTL_SECS) * 1000, pingTimeoutMs: database.limits.pingTimeoutMs };
  const transactionOptions = transactionBounds(database.limits);
  try {
    await database.migrate(options.onMigrationApplied);
  } catch (error) {
    await database.close();
    throw error;
  }
  if (database.kind === 'postgresql') {
    const { PrismaClient } = await import('../../../prisma/generated/postgresql/client.js');
    // One pool: Prisma's adapter writes through it, and the translated queries read through it.
    const adapter = new PrismaPg(database.pool, { disposeExternalPool: false });
    const readRows: RowReader = (sql, values, budget) => database.read(sql, values, budget.signal);
    return new SqlRecordStore(postgresqlDialect, new PrismaClient({ adapter, transactionOptions }), readRows, times, database);
  }
  const { PrismaClient } = await import('../../../prisma/generated/sqlite/client.js');
  // Epoch milliseconds: instants compare as numbers in the translated queries. A statement waits
  // for another process's write lock (SQLite's busy timeout) as long as a statement may take.
  const adapter = new PrismaLibSql({ url: database.location.url, timeout: database.limits.statementTimeoutMs }, { timestampFormat: 'unixepoch-ms' });
  // Same schema, same client shape (see StoreClient).
  const client = new PrismaClient({ adapter, transactionOptions }) as unknown as StoreClient;
  // A statement is not cancelled here (Prisma's libsql adapter gives no interrupt): none starts past
  // the request's deadline, and the answer does not wait for one that runs (sql-record-store.ts).
  const readRows: RowReader = (sql, values) => client.$queryRawUnsafe(sql, ...values);
  return new SqlRecordStore(sqliteDialect, client, readRows, times, database);
}

/**
 * Prisma waits for a transaction to start (for a connection of the pool) up to `maxWait`, 2 s by
 * default, which a burst on a busy machine exceeded (P2028, answered 502 before); here the same
 * bound as every other wait for a connection. A whole transaction gets the time of one statement.
 * (On SQLite the driver is synchronous: transactions take their turns without the event loop
 * waiting, so the busy timeout is the bound that matters there.)
 */
function transactionBounds(limits: DatabaseLimits): { maxWait: number; timeout: number } {
  return { maxWait: limits.acquireTimeoutMs, timeout: limits.statementTimeoutMs };
}
