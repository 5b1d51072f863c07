import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@libsql/client';
import { DomainError } from '../kernel/errors.js';
import { storeFailure } from './failure.js';
import type { Backend, DatabaseLocation } from './location.js';

/**
 * Applies the committed SQL migrations (prisma/migrations/<backend>/<name>/migration.sql, written
 * from schema.prisma by scripts/prisma-migration.mjs) in name order, without Prisma's schema engine.
 * Each migration runs in its own transaction together with its row in `_store_migrations`, so a
 * migration is applied entirely or not at all, and a second start applies nothing. Migrators that
 * start at once are serialised: on PostgreSQL by an advisory lock, on SQLite by its write lock.
 */
export interface Migration {
  name: string;
  sql: string;
  /** sha256 of the SQL: an applied migration whose file changed stops the start. */
  checksum: string;
}

/**
 * Names of the migrations applied by this call (empty when the database was up to date); `applied`
 * hears each as soon as it is in, with the time it took (a long one is not silent until the end).
 */
export async function migrate(location: DatabaseLocation, onApplied?: (name: string, ms: number) => void): Promise<string[]> {
  let session: MigrationSession | undefined;
  try {
    const migrations = await loadMigrations(location.kind);
    session = location.kind === 'postgresql' ? await postgresSession(location.url) : await sqliteSession(location.url);
    const active = session;
    return await active.exclusively(async () => {
      await active.createHistory();
      assertUnchanged(migrations, await active.appliedChecksums());
      const applied: string[] = [];
      for (const migration of migrations) {
        const started = performance.now();
        if (!(await active.applyOnce(migration))) continue;
        applied.push(migration.name);
        onApplied?.(migration.name, Math.round(performance.now() - started));
      }
      return applied;
    });
  } catch (error) {
    throw storeFailure('records store migration failed', error);
  } finally {
    await session?.close();
  }
}

export async function loadMigrations(backend: Backend): Promise<Migration[]> {
  const dir = path.join(migrationsRoot(), backend);
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      // Line endings normalised, so a checkout with CRLF does not count as a changed migration.
      const sql = (await readFile(path.join(dir, name, 'migration.sql'), 'utf8')).replace(/\r\n/g, '\n');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** prisma/migrations at the project root, found from this module in the sources as in dist/. */
function migrationsRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'prisma', 'migrations'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('prisma/migrations not found above the database module');
    dir = parent;
  }
  return path.join(dir, 'prisma', 'migrations');
}

function assertUnchanged(migrations: Migration[], applied: Map<string, string>): void {
  const changed = migrations.find((migration) => applied.has(migration.name) && applied.get(migration.name) !== migration.checksum);
  if (changed !== undefined) {
    throw new DomainError('STORE_ERROR', `migration ${changed.name} was changed after it was applied`);
  }
}

interface MigrationSession {
  /** Runs `work` while no other migrator of this database runs its own. */
  exclusively<T>(work: () => Promise<T>): Promise<T>;
  createHistory(): Promise<void>;
  appliedChecksums(): Promise<Map<string, string>>;
  /** Applies the migration and records it in one transaction; false when it was already recorded. */
  applyOnce(migration: Migration): Promise<boolean>;
  close(): Promise<void>;
}

const HISTORY = '_store_migrations';
/** Any fixed number: every migrator of the records store takes this advisory lock. */
const POSTGRES_LOCK_KEY = '7205759403792793';
const CONNECT_TIMEOUT_MS = 10_000;
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

async function postgresSession(databaseUrl: string): Promise<MigrationSession> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection lost mid-way also rejects the pending query; without a listener it would crash.
  client.on('error', () => undefined);
  await client.connect();
  return {
    async exclusively(work) {
      await client.query('SELECT pg_advisory_lock($1::bigint)', [POSTGRES_LOCK_KEY]);
      try {
        return await work();
      } finally {
        // Closing the session releases the lock too, should this fail.
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [POSTGRES_LOCK_KEY]).catch(() => undefined);
      }
    },
    async createHistory() {
      await client.query(`CREATE TABLE IF NOT EXISTS "${HISTORY}" (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ(3) NOT NULL)`);
    },
    async appliedChecksums() {
      const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${HISTORY}"`);
      return new Map(rows.map((row) => [row.name, row.checksum]));
    },
    async applyOnce(migration) {
      await client.query('BEGIN');
      try {
        const found = await client.query(`SELECT 1 FROM "${HISTORY}" WHERE name = $1`, [migration.name]);
        if (found.rowCount === 0) {
          await client.query(migration.sql); // no parameters: the simple protocol runs every statement
          await client.query(`INSERT INTO "${HISTORY}" (name, checksum, applied_at) VALUES ($1, $2, now())`, [migration.name, migration.checksum]);
        }
        await client.query('COMMIT');
        return found.rowCount === 0;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
    close: () => client.end(),
  };
}

/**
 * SQLite has no advisory lock: each migration takes the database's write lock instead
 * (BEGIN IMMEDIATE, waiting up to the busy timeout) and checks the history again inside it.
 */
async function sqliteSession(databaseUrl: string): Promise<MigrationSession> {
  const { createClient } = await import('@libsql/client');
  const client = createClient({ url: databaseUrl, timeout: SQLITE_BUSY_TIMEOUT_MS });
  return {
    exclusively: (work) => work(),
    async createHistory() {
      // WAL: readers keep reading while a writer writes; the mode is stored in the database file.
      await walMode(client);
      await client.execute(`CREATE TABLE IF NOT EXISTS "${HISTORY}" (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    },
    async appliedChecksums() {
      const { rows } = await client.execute(`SELECT name, checksum FROM "${HISTORY}"`);
      return new Map(rows.map((row) => [String(row.name), String(row.checksum)]));
    },
    async applyOnce(migration) {
      // SQLite's procedure for schema changes: foreign keys off (a PRAGMA a transaction cannot
      // change, so on the connection the transaction takes over), checked before the commit.
      // Rebuilding a table otherwise drops it with ON DELETE CASCADE on the rows that reference it.
      await client.execute('PRAGMA foreign_keys = OFF');
      const transaction = await client.transaction('write');
      try {
        const found = await transaction.execute({ sql: `SELECT 1 FROM "${HISTORY}" WHERE name = ?`, args: [migration.name] });
        if (found.rows.length === 0) {
          await transaction.executeMultiple(migration.sql);
          const broken = await transaction.execute('PRAGMA foreign_key_check');
          if (broken.rows.length > 0) throw new Error(`migration ${migration.name} leaves rows whose foreign keys match nothing`);
          await transaction.execute({
            sql: `INSERT INTO "${HISTORY}" (name, checksum, applied_at) VALUES (?, ?, ?)`,
            args: [migration.name, migration.checksum, new Date().toISOString()],
          });
        }
        await transaction.commit();
        return found.rows.length === 0;
      } finally {
        transaction.close(); // rolls back unless committed
      }
    },
    close: async () => client.close(),
  };
}

/**
 * Switches a database file to WAL. Why the retries: the switch needs the file to itself, and SQLite
 * answers SQLITE_BUSY at once, without its busy timeout, while another connection writes to it: two
 * workers starting on a fresh database (`WORKERS` > 1) failed one start in 30 or 60.
 */
async function walMode(client: Client): Promise<void> {
  const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      await client.execute('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
