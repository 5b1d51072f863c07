import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Client as SqliteClient, type InStatement, createClient } from '@libsql/client';
import type { SqliteDatabase } from './database.js';
import { SQL_BASICS } from './dialect.js';
import { storeFailure } from './failure.js';
import type { DatabaseLimits } from './limits.js';
import type { DatabaseLocation } from './location.js';
import { migrate } from './migrator.js';

/** The records database in an SQLite file (database.ts): one connection, opened at the first statement. */
export async function sqliteDatabase(location: Extract<DatabaseLocation, { kind: 'sqlite' }>, limits: DatabaseLimits): Promise<SqliteDatabase> {
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
