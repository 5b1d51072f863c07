import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PrismaLibSql } from '@prisma/adapter-libsql';
import { PrismaPg } from '@prisma/adapter-pg';
import { DomainError } from '../../../kernel/errors.js';
import { SQLITE_BUSY_TIMEOUT_MS, migrate } from './migrator.js';
import pg from 'pg';
import { PrismaRecordStore } from './prisma-record-store.js';
import type { RowReader, StoreClient } from './prisma-record-store.js';
import type { RecordStore } from '../domain/records/record-store.js';
import { storeFailure } from './store-error.js';

export interface StoreOptions {
  /** How long an idempotency key is remembered (IDEMPOTENCY_TTL_SECS). */
  idempotencyTtlSecs?: number;
}

const DEFAULT_IDEMPOTENCY_TTL_SECS = 86_400;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The records store for DATABASE_URL: `file:<path>` is an embedded SQLite database (its directory is
 * created), `postgresql://…` or `postgres://…` a PostgreSQL one. Pending migrations are applied
 * before the store is handed out. Throws STORE_ERROR when the database cannot be reached or
 * migrated; the message never repeats the URL (it may hold a password).
 */
export async function openRecordStore(databaseUrl: string, options: StoreOptions = {}): Promise<RecordStore> {
  const ttlMs = (options.idempotencyTtlSecs ?? DEFAULT_IDEMPOTENCY_TTL_SECS) * 1000;
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    await migrate('postgresql', databaseUrl);
    const { PrismaClient } = await import('../../../prisma/generated/postgresql/client.js');
    // One pool: Prisma's adapter writes through it, and the translated queries read through it.
    const pool = new pg.Pool({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    // An idle connection the server ends (a restart) is dropped by the pool; unheard, its error
    // would end the process. The next query opens a new connection or fails as STORE_ERROR.
    pool.on('error', () => undefined);
    // The pool stops listening to a connection while it is checked out (Prisma's adapter holds one
    // between a transaction's statements): ended then, its error would be unheard too. The
    // statement in flight, if any, fails on its own; the broken connection is dropped on release.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const adapter = new PrismaPg(pool, { disposeExternalPool: true });
    const readRows: RowReader = async (sql, values) => (await pool.query(sql, values)).rows;
    return new PrismaRecordStore('postgresql', new PrismaClient({ adapter }), readRows, ttlMs);
  }
  if (databaseUrl.startsWith('file:')) {
    const url = `file:${await prepareSqliteFile(databaseUrl)}`;
    await migrate('sqlite', url);
    const { PrismaClient } = await import('../../../prisma/generated/sqlite/client.js');
    // Epoch milliseconds: instants compare as numbers in the translated queries.
    const adapter = new PrismaLibSql({ url, timeout: SQLITE_BUSY_TIMEOUT_MS }, { timestampFormat: 'unixepoch-ms' });
    // Same schema, same client shape (see StoreClient).
    const client = new PrismaClient({ adapter }) as unknown as StoreClient;
    return new PrismaRecordStore('sqlite', client, (sql, values) => client.$queryRawUnsafe(sql, ...values), ttlMs);
  }
  throw new DomainError('STORE_ERROR', 'the records store URL must start with file:, postgresql:// or postgres://');
}

/** The absolute path of `file:<path>` (relative to the working directory), its directory created. */
async function prepareSqliteFile(databaseUrl: string): Promise<string> {
  const location = databaseUrl.slice('file:'.length).replace(/^\/\/(?=\/)/, '').replace(/\?.*$/, '');
  if (location === '') throw new DomainError('STORE_ERROR', 'the records store URL file: names no file');
  const file = path.resolve(location);
  try {
    await mkdir(path.dirname(file), { recursive: true });
  } catch (error) {
    throw storeFailure('the records store directory cannot be created', error);
  }
  return file;
}
