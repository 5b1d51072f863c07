import pg from 'pg';
import type { DatabaseOptions, PostgresDatabase } from './database.js';
import { SQL_BASICS } from './dialect.js';
import type { DatabaseLocation } from './location.js';
import { migrate } from './migrator.js';
import { cancellableRead, openPool } from './postgres-pool.js';

/** The records database on PostgreSQL (database.ts): a bounded pool, reads the request's deadline cancels on the server. */
export function postgresDatabase(location: Extract<DatabaseLocation, { kind: 'postgresql' }>, options: DatabaseOptions): PostgresDatabase {
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
