import { type Database, type Session, openDatabase } from '../../database/database.js';
import type { DatabaseLimits } from '../../database/limits.js';
import { DayCaps, type DayHolding, clientKey, rowKey } from './daily-caps.js';
import {
  type CappedRequests,
  type CountKey,
  type DailyCaps,
  OTHER_CLIENT,
  OTHER_TYPE,
  type PageRequest,
  type UsageBatch,
  type UsageCount,
  type UsageOperation,
  type UsagePage,
  type UsageStore,
  isOtherOperation,
  otherOperation,
} from './usage-store.js';

type Row = Record<string, unknown>;

interface Statement {
  sql: string;
  values: unknown[];
}

/** Writers of usage take turns (processes and replicas), by this advisory lock on PostgreSQL (the migrator's is …793). */
const WRITERS_TAKE_TURNS = { turnsBy: '7205759403792794' };

/**
 * The usage port on the records database (tables `usage_operations` and `usage_counts`, migrations
 * `*_usage_reporting` and `*_usage_signatures`), PostgreSQL or SQLite as DATABASE_URL says. Its own
 * small connection pool: a write of usage never waits behind the records' requests, nor they behind it.
 */
export async function openUsageStore(databaseUrl: string, limits: DatabaseLimits, onMigrationApplied?: (name: string, ms: number) => void): Promise<UsageStore> {
  const database = await openDatabase(databaseUrl, { limits: { ...limits, poolSize: 2 } });
  try {
    await database.migrate(onMigrationApplied);
  } catch (error) {
    await database.close();
    throw error;
  }
  return new SqlUsageStore(database);
}

/** Rows per INSERT and keys per look-up: well under both databases' limits on bound values. */
const ROWS_PER_STATEMENT = 500;
const KEYS_PER_LOOKUP = 200;

/**
 * The bytes a signature takes in JSON: signatures are ASCII (names, punctuation, emptied strings),
 * and JSON escapes their quotes only.
 */
const JSON_BODY_BYTES = `length(body) + length(body) - length(replace(body, '"', ''))`;

type SizedOperation = Omit<UsageOperation, 'body'> & { bodyBytes: number };

/**
 * How many of the rows, in order, a page holds within `maxBytes` of JSON: a row's, and its
 * operation's the first time the page names it; at least one, whatever its size.
 */
function rowsWithin(counts: readonly UsageCount[], operations: ReadonlyMap<string, SizedOperation>, maxBytes: number): number {
  let bytes = 0;
  const named = new Set<string>();
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    const operation = named.has(count.hash) ? undefined : operations.get(count.hash);
    const added = Buffer.byteLength(JSON.stringify(count)) + 1 + (operation ? operationBytes(operation) : 0);
    if (i > 0 && bytes + added > maxBytes) return i;
    bytes += added;
    named.add(count.hash);
  }
  return counts.length;
}

function operationBytes({ bodyBytes, ...operation }: SizedOperation): number {
  return Buffer.byteLength(JSON.stringify({ ...operation, body: '' })) + bodyBytes + 1;
}

/** What this process knows the database holds of a day: look-ups are needed only for what it does not. */
interface KnownDay {
  holding: DayHolding;
  rows: Set<string>;
}

class SqlUsageStore implements UsageStore {
  /** By day: only the days of the last batch are kept. */
  private known = new Map<string, KnownDay>();

  constructor(private readonly db: Database) {}

  async write(batch: UsageBatch, caps: DailyCaps): Promise<CappedRequests[]> {
    const operations = new Map(batch.operations.map((o) => [o.hash, o]));
    const byDay = new Map<string, UsageCount[]>();
    for (const count of batch.counts) {
      const day = byDay.get(count.day);
      if (day) day.push(count);
      else byDay.set(count.day, [count]);
    }
    const learned = new Map<string, KnownDay>();
    const capped = await this.db.transaction(async (session) => {
      const statements: Statement[] = [];
      const capped: CappedRequests[] = [];
      for (const [day, counts] of byDay) {
        const known = await this.knownDay(session, day, counts);
        const dayCaps = new DayCaps(day, caps, operations);
        const placed = dayCaps.clientsAndOperations(counts, known.holding);
        const written = dayCaps.rows(placed, await this.rowHolding(session, day, placed, known.rows));
        capped.push(...written.capped);
        for (const count of written.counts) if (!isOtherOperation(count.hash)) known.rows.add(rowKey(count));
        learned.set(day, known);
        statements.push(...this.countStatements(written.counts, operations));
        if (written.other.size > 0) statements.push(await this.otherStatement(session, day, written.other, written.counts));
      }
      for (const { sql, values } of statements) await session.query(sql, values);
      return capped;
    }, WRITERS_TAKE_TURNS);
    this.known = learned;
    return capped;
  }

  async purge(day: string): Promise<void> {
    const cutoffMs = Date.parse(`${day}T00:00:00Z`);
    await this.db.transaction(async (session) => {
      await session.query(`DELETE FROM usage_counts WHERE day < ${this.db.sql.placeholder(1)}`, [day]);
      await session.query(`DELETE FROM usage_operations WHERE last_seen_ms < ${this.db.sql.placeholder(1)}`, [cutoffMs]);
    }, WRITERS_TAKE_TURNS);
  }

  async page(request: PageRequest): Promise<UsagePage> {
    const rows = await this.countRows(request);
    const counts = rows.slice(0, request.limit).map(countOf);
    const operations = new Map<string, SizedOperation>();
    for (const r of await this.byHashes(`hash, name, type, coordinates, ${JSON_BODY_BYTES} AS body_bytes`, unique(counts.map((c) => c.hash)))) {
      operations.set(String(r.hash), { ...operationOf(r), bodyBytes: request.bodies ? Number(r.body_bytes) : 0 });
    }
    const kept = counts.slice(0, rowsWithin(counts, operations, request.maxBytes));
    const named = unique(kept.map((c) => c.hash)).filter((hash) => operations.has(hash));
    const bodies = request.bodies ? new Map((await this.byHashes('hash, body', named)).map((r) => [String(r.hash), String(r.body)])) : new Map<string, string>();
    const more = kept.length < counts.length || rows.length > request.limit;
    return {
      operations: named.map((hash) => {
        const { bodyBytes: _, ...operation } = operations.get(hash)!;
        return { ...operation, body: bodies.get(hash) ?? '' };
      }),
      counts: kept,
      next: more && kept.length > 0 ? keyOf(kept[kept.length - 1]!) : null,
    };
  }

  /** The window's count rows after the page's key, in key order: one more than the page's limit (whether more follow). */
  private countRows({ from, after, limit }: PageRequest): Promise<Row[]> {
    const p = (i: number) => this.db.sql.placeholder(i);
    const beyond = after ? ` AND (hash, client_name, client_version, day, inputs) > (${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)})` : '';
    return this.db.query(
      `SELECT hash, client_name, client_version, day, inputs, requests, last_seen_ms FROM usage_counts WHERE day >= ${p(1)}${beyond} ORDER BY hash, client_name, client_version, day, inputs LIMIT ${p(2)}`,
      [from, limit + 1, ...(after ? [after.hash, after.client, after.clientVersion, after.day, after.inputs] : [])],
    );
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

  /**
   * The operations and clients the day holds, read again only when the batch names one this process
   * has not seen the day hold (another process may have taken a place since).
   */
  private async knownDay(session: Session, day: string, counts: readonly UsageCount[]): Promise<KnownDay> {
    const known = this.known.get(day) ?? { holding: { operations: new Set(), clients: new Set() }, rows: new Set() };
    const copy: KnownDay = { holding: { operations: new Set(known.holding.operations), clients: new Set(known.holding.clients) }, rows: new Set(known.rows) };
    if (counts.some((c) => !copy.holding.operations.has(c.hash))) {
      const rows = await session.query(`SELECT DISTINCT hash FROM usage_counts WHERE day = ${this.db.sql.placeholder(1)} AND hash NOT LIKE 'other:%'`, [day]);
      copy.holding.operations = new Set(rows.map((r) => String(r.hash)));
    }
    if (counts.some((c) => !copy.holding.clients.has(clientKey(c.client, c.clientVersion)))) {
      const rows = await session.query(`SELECT DISTINCT client_name, client_version FROM usage_counts WHERE day = ${this.db.sql.placeholder(1)}`, [day]);
      copy.holding.clients = new Set(rows.filter((r) => !(r.client_name === OTHER_CLIENT && r.client_version === OTHER_CLIENT)).map((r) => clientKey(String(r.client_name), String(r.client_version))));
    }
    return copy;
  }

  /** Which of the rows the day holds (this process's knowledge first), and how many rows it holds when one is new. */
  private async rowHolding(session: Session, day: string, counts: readonly UsageCount[], known: Set<string>): Promise<{ existing: Set<string>; stored: number }> {
    const unknown = counts.filter((c) => !known.has(rowKey(c)));
    for (let i = 0; i < unknown.length; i += KEYS_PER_LOOKUP) {
      const chunk = unknown.slice(i, i + KEYS_PER_LOOKUP);
      const tuples = chunk.map((_, r) => `(${[2, 3, 4, 5].map((c) => this.db.sql.placeholder(r * 4 + c)).join(', ')})`);
      const found = await session.query(
        `SELECT hash, client_name, client_version, inputs FROM usage_counts WHERE day = ${this.db.sql.placeholder(1)} AND (hash, client_name, client_version, inputs) IN (VALUES ${tuples.join(', ')})`,
        [day, ...chunk.flatMap((c) => [c.hash, c.client, c.clientVersion, c.inputs.join(' ')])],
      );
      for (const r of found) known.add(rowKey({ hash: String(r.hash), client: String(r.client_name), clientVersion: String(r.client_version) }, String(r.inputs)));
    }
    if (counts.every((c) => known.has(rowKey(c)))) return { existing: known, stored: 0 };
    const [{ n }] = (await session.query(`SELECT count(*) AS n FROM usage_counts WHERE day = ${this.db.sql.placeholder(1)} AND hash NOT LIKE 'other:%'`, [day])) as [{ n: unknown }];
    return { existing: known, stored: Number(n) };
  }

  /** The operations the written counts name (their text written once per hash), then the counts. */
  private countStatements(counts: readonly UsageCount[], operations: ReadonlyMap<string, UsageOperation>): Statement[] {
    const lastSeen = new Map<string, number>();
    for (const c of counts) lastSeen.set(c.hash, Math.max(lastSeen.get(c.hash) ?? 0, c.lastSeenMs));
    const named = [...lastSeen.keys()].flatMap((hash) => {
      const o = operations.get(hash);
      return o ? [[o.hash, o.name, o.type, o.body, JSON.stringify(o.coordinates), lastSeen.get(hash)!, lastSeen.get(hash)!]] : [];
    });
    return [
      ...chunks(named).map((rows) =>
        this.upsert(
          'usage_operations (hash, name, type, body, coordinates, first_seen_ms, last_seen_ms)',
          rows,
          '(hash)',
          `last_seen_ms = ${this.db.sql.greatest('usage_operations.last_seen_ms', 'excluded.last_seen_ms')}`,
        ),
      ),
      ...chunks(counts.map((c) => [c.hash, c.client, c.clientVersion, c.day, c.inputs.join(' '), c.count, c.lastSeenMs])).map((rows) =>
        this.upsert(
          'usage_counts (hash, client_name, client_version, day, inputs, requests, last_seen_ms)',
          rows,
          '(hash, client_name, client_version, day, inputs)',
          `requests = usage_counts.requests + excluded.requests, last_seen_ms = ${this.db.sql.greatest('usage_counts.last_seen_ms', 'excluded.last_seen_ms')}`,
        ),
      ),
    ];
  }

  /** The day's `other` operation with every coordinate of what went there, this batch's added to what it held. */
  private async otherStatement(session: Session, day: string, coordinates: ReadonlySet<string>, counts: readonly UsageCount[]): Promise<Statement> {
    const hash = otherOperation(day);
    const [held] = await session.query(`SELECT coordinates FROM usage_operations WHERE hash = ${this.db.sql.placeholder(1)}`, [hash]);
    const all = new Set([...(held ? (JSON.parse(String(held.coordinates)) as string[]) : []), ...coordinates]);
    const lastSeenMs = Math.max(...counts.filter((c) => c.hash === hash).map((c) => c.lastSeenMs));
    return this.upsert(
      'usage_operations (hash, name, type, body, coordinates, first_seen_ms, last_seen_ms)',
      [[hash, null, OTHER_TYPE, '', JSON.stringify([...all].sort()), lastSeenMs, lastSeenMs]],
      '(hash)',
      `coordinates = excluded.coordinates, last_seen_ms = ${this.db.sql.greatest('usage_operations.last_seen_ms', 'excluded.last_seen_ms')}`,
    );
  }

  private async byHashes(columns: string, hashes: string[]): Promise<Row[]> {
    const found: Row[] = [];
    for (let i = 0; i < hashes.length; i += KEYS_PER_LOOKUP) {
      const chunk = hashes.slice(i, i + KEYS_PER_LOOKUP);
      found.push(...(await this.db.query(`SELECT ${columns} FROM usage_operations WHERE hash IN (${chunk.map((_, j) => this.db.sql.placeholder(j + 1)).join(', ')})`, chunk)));
    }
    return found;
  }

  private upsert(into: string, rows: unknown[][], conflict: string, update: string): Statement {
    const width = rows[0]!.length;
    const tuples = rows.map((_, r) => `(${Array.from({ length: width }, (_, c) => this.db.sql.placeholder(r * width + c + 1)).join(', ')})`);
    return { sql: `INSERT INTO ${into} VALUES ${tuples.join(', ')} ON CONFLICT ${conflict} DO UPDATE SET ${update}`, values: rows.flat() };
  }
}

function countOf(r: Row): UsageCount {
  return {
    hash: String(r.hash),
    client: String(r.client_name),
    clientVersion: String(r.client_version),
    day: String(r.day),
    inputs: r.inputs ? String(r.inputs).split(' ') : [],
    count: Number(r.requests),
    lastSeenMs: Number(r.last_seen_ms),
  };
}

function operationOf(r: Row): Omit<UsageOperation, 'body'> {
  return { hash: String(r.hash), name: r.name === null ? null : String(r.name), type: String(r.type), coordinates: JSON.parse(String(r.coordinates)) as string[] };
}

function keyOf(count: UsageCount): CountKey {
  return { hash: count.hash, client: count.client, clientVersion: count.clientVersion, day: count.day, inputs: count.inputs.join(' ') };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}
