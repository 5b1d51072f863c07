import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { createClient } from '@libsql/client';
import { migrate } from '../../subgraphs/models/store/migrator.js';
import { openPool } from '../../subgraphs/models/store/postgres-pool.js';
import type { StoreLimits } from '../../subgraphs/models/store/store-limits.js';
import { USAGE_EXPORT_FORMAT, type UsageBatch, type UsageCount, type UsageExport, type UsageOperation, type UsageStore } from './usage-store.js';

/**
 * The usage port on the records database (tables `usage_operations` and `usage_counts`, migration
 * `*_usage_reporting`), PostgreSQL or SQLite as DATABASE_URL says. Its own small connection pool:
 * a write of usage never waits behind the records' requests, nor they behind it.
 */
export async function openUsageStore(databaseUrl: string, limits: StoreLimits, onMigrationApplied?: (name: string, ms: number) => void): Promise<UsageStore> {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    await migrate('postgresql', databaseUrl, onMigrationApplied);
    const pool = openPool(databaseUrl, { ...limits, poolSize: 2 });
    return new SqlUsageStore('postgresql', {
      query: async (sql, values) => (await pool.query(sql, values)).rows,
      transaction: async (statements) => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          for (const { sql, values } of statements) await client.query(sql, values);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    });
  }
  const file = path.resolve(
    databaseUrl
      .slice('file:'.length)
      .replace(/^\/\/(?=\/)/, '')
      .replace(/\?.*$/, ''),
  );
  await mkdir(path.dirname(file), { recursive: true });
  const url = `file:${file}`;
  await migrate('sqlite', url, onMigrationApplied);
  const client = createClient({ url, timeout: limits.statementTimeoutMs });
  return new SqlUsageStore('sqlite', {
    query: async (sql, values) => (await client.execute({ sql, args: values as never })).rows as unknown as Record<string, unknown>[],
    transaction: async (statements) => {
      await client.batch(
        statements.map(({ sql, values }) => ({ sql, args: values as never })),
        'write',
      );
    },
    close: async () => client.close(),
  });
}

interface Statement {
  sql: string;
  values: unknown[];
}

interface Connection {
  query(sql: string, values: unknown[]): Promise<Record<string, unknown>[]>;
  transaction(statements: Statement[]): Promise<void>;
  close(): Promise<void>;
}

/** Rows per INSERT: well under both databases' limits on bound values. */
const ROWS_PER_STATEMENT = 500;

class SqlUsageStore implements UsageStore {
  constructor(
    private readonly backend: 'postgresql' | 'sqlite',
    private readonly db: Connection,
  ) {}

  async write(batch: UsageBatch): Promise<void> {
    const lastSeen = new Map<string, number>();
    for (const c of batch.counts) lastSeen.set(c.hash, Math.max(lastSeen.get(c.hash) ?? 0, c.lastSeenMs));
    const operations = batch.operations.map((o) => [o.hash, o.name, o.type, o.body, JSON.stringify(o.coordinates), lastSeen.get(o.hash) ?? 0, lastSeen.get(o.hash) ?? 0]);
    const counts = batch.counts.map((c) => [c.hash, c.client, c.clientVersion, c.day, c.inputs.join(' '), c.count, c.lastSeenMs]);
    await this.db.transaction([
      ...chunks(operations).map((rows) =>
        this.upsert(
          'usage_operations (hash, name, type, body, coordinates, first_seen_ms, last_seen_ms)',
          rows,
          '(hash)',
          `last_seen_ms = ${this.greatest('usage_operations.last_seen_ms', 'excluded.last_seen_ms')}`,
        ),
      ),
      ...chunks(counts).map((rows) =>
        this.upsert(
          'usage_counts (hash, client_name, client_version, day, inputs, requests, last_seen_ms)',
          rows,
          '(hash, client_name, client_version, day, inputs)',
          `requests = usage_counts.requests + excluded.requests, last_seen_ms = ${this.greatest('usage_counts.last_seen_ms', 'excluded.last_seen_ms')}`,
        ),
      ),
    ]);
  }

  async purge(day: string): Promise<void> {
    const cutoffMs = Date.parse(`${day}T00:00:00Z`);
    await this.db.transaction([
      { sql: `DELETE FROM usage_counts WHERE day < ${this.placeholder(1)}`, values: [day] },
      { sql: `DELETE FROM usage_operations WHERE last_seen_ms < ${this.placeholder(1)}`, values: [cutoffMs] },
    ]);
  }

  async read(from: string): Promise<UsageExport> {
    const countRows = await this.db.query(
      `SELECT hash, client_name, client_version, day, inputs, requests, last_seen_ms FROM usage_counts WHERE day >= ${this.placeholder(1)} ORDER BY hash, client_name, client_version, day, inputs`,
      [from],
    );
    const counts: UsageCount[] = countRows.map((r) => ({
      hash: String(r.hash),
      client: String(r.client_name),
      clientVersion: String(r.client_version),
      day: String(r.day),
      inputs: r.inputs ? String(r.inputs).split(' ') : [],
      count: Number(r.requests),
      lastSeenMs: Number(r.last_seen_ms),
    }));
    const hashes = new Set(counts.map((c) => c.hash));
    const operationRows = await this.db.query('SELECT hash, name, type, body, coordinates FROM usage_operations ORDER BY hash', []);
    const operations: UsageOperation[] = operationRows
      .filter((r) => hashes.has(String(r.hash)))
      .map((r) => ({ hash: String(r.hash), name: r.name === null ? null : String(r.name), type: String(r.type), body: String(r.body), coordinates: JSON.parse(String(r.coordinates)) as string[] }));
    return { format: USAGE_EXPORT_FORMAT, version: 1, from, exportedAt: new Date().toISOString(), operations, counts };
  }

  async reachable(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1', []);
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }

  private upsert(into: string, rows: unknown[][], conflict: string, update: string): Statement {
    const width = rows[0]!.length;
    const tuples = rows.map((_, r) => `(${Array.from({ length: width }, (_, c) => this.placeholder(r * width + c + 1)).join(', ')})`);
    return { sql: `INSERT INTO ${into} VALUES ${tuples.join(', ')} ON CONFLICT ${conflict} DO UPDATE SET ${update}`, values: rows.flat() };
  }

  private placeholder(index: number): string {
    return this.backend === 'postgresql' ? `$${index}` : `?${index}`;
  }

  private greatest(a: string, b: string): string {
    return this.backend === 'postgresql' ? `GREATEST(${a}, ${b})` : `MAX(${a}, ${b})`;
  }
}

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}
