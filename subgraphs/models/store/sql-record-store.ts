import type { PrismaClient } from '../../../prisma/generated/postgresql/client.js';
import { DomainError } from '../../../kernel/errors.js';
import type { JsonValue } from '../../../kernel/records/canonical-json.js';
import type { RecordFilter } from '../../../kernel/records/record-filter.js';
import type { CreateRecordRequest, CreateRecordResult, Grantee, ModelVersion, Principal, ReadBudget, RecordStore, StoredRecord } from '../domain/records/record-store.js';
import { recordNamespace } from '../domain/records/record-store.js';
import { NO_BUDGET } from '../../../kernel/request-budget.js';
import type { RecordQuery } from '../domain/records/record-store.js';
import type { RecordPage, StorePage } from '../domain/records/record-page.js';
import {
  deleteExpiredClaim,
  deleteGrant,
  filterSlice,
  insertClaim,
  insertGrant,
  insertRecord,
  rowKeys,
  selectLiveClaim,
  selectOwned,
  selectRecord,
  selectVisibleRecords,
  translateCount,
  translateRead,
  writeNumbers,
} from './query-translator.js';
import type { BudgetedRow, KeyColumns, Read, RecordKey, RecordRow, Slice, SqlStatement } from './query-translator.js';
import { type OrderShape, encodeCursor } from './keyset.js';
import type { SqlDialect } from './sql/sql-dialect.js';
import { ShortcutMemory } from './shortcut-memory.js';
import { storeFailure } from '../../../database/failure.js';
import { unstorable } from '../../../kernel/records/storable-json.js';

/**
 * What the store uses of a generated Prisma client: its driver adapter runs the statements the
 * store writes (query-translator.ts), in transactions bounded as store-limits.ts says, and reads on
 * SQLite; no model query. The SQLite and PostgreSQL clients are generated from one schema, so
 * either one has this shape (typed here after the PostgreSQL one).
 */
export type StoreClient = Pick<PrismaClient, '$transaction' | '$queryRawUnsafe' | '$executeRawUnsafe' | '$disconnect'>;

/**
 * Runs a SELECT the translator wrote and returns its rows. On PostgreSQL the driver's pool runs it
 * (the pool the Prisma adapter uses too): Prisma's raw-query path converted every row again, 2 ms
 * of a 100-record page (open-store.ts). On SQLite, Prisma's `$queryRawUnsafe`. A reader that can
 * cancel a statement (PostgreSQL) asks the request's budget for its signal; asking makes one, which
 * a reader that cannot (SQLite) spares every request.
 */
export type RowReader = <T>(sql: string, values: unknown[], budget: Pick<ReadBudget, 'signal'>) => Promise<T[]>;

export interface RecordStoreTimes {
  /** How long an idempotency key is remembered. */
  idempotencyTtlMs: number;
  /** How long `ping` waits for the database (DATABASE_PING_TIMEOUT_MS). */
  pingTimeoutMs: number;
}

/** The largest payload a request stores by default (SERVER_REQUEST_MAX_BYTES, 1 MiB): what one row may weigh. */
const LARGEST_PAYLOAD_BYTES = 1024 * 1024;

/** Ids in one statement of `getRecords`: well within either database's bound parameters (SQLite's 32,766). */
const IDS_PER_READ = 1000;

export class SqlRecordStore implements RecordStore {
  private readonly shortcuts = new ShortcutMemory();

  constructor(
    readonly dialect: SqlDialect,
    private readonly client: StoreClient,
    private readonly readRows: RowReader,
    private readonly times: RecordStoreTimes,
    /** The records database the store took over (database/database.ts): closed with it. */
    private readonly database: { close(): Promise<void> },
  ) {}

  /**
   * Within its own bound, shorter than a statement's: a database that does not answer makes the
   * readiness probes say so in that time. (The statement itself runs on until its own bound.)
   */
  async ping(): Promise<void> {
    await this.guard('records store unreachable', () => answeredWithin(this.times.pingTimeoutMs, this.client.$queryRawUnsafe('SELECT 1')));
  }

  async close(): Promise<void> {
    await this.client.$disconnect();
    await this.database.close();
  }

  /**
   * One transaction writes the record, its key and its numbers (record-numbers.ts), as the domain
   * prepared them (StorableRecord); the primary keys decide between concurrent requests (they may
   * run in other processes). A request that loses waits for the winner's commit, fails on the
   * unique constraint, rolls back, and then reads what the winner stored.
   */
  async createRecord({ record, owner, idempotency }: CreateRecordRequest): Promise<CreateRecordResult> {
    const now = new Date();
    const at = now.toISOString();
    const stored: RecordKey = { id: record.id, namespace: recordNamespace(owner) };
    const expiresAt = new Date(now.getTime() + this.times.idempotencyTtlMs).toISOString();
    const writes = [
      deleteExpiredClaim(this.dialect, idempotency, at),
      insertRecord(this.dialect, record, owner, at),
      insertClaim(this.dialect, idempotency, stored, at, expiresAt),
      ...(record.numbers.length > 0 ? [writeNumbers(this.dialect, stored, record.numbers)] : []),
    ];
    try {
      await this.client.$transaction(writes.map(({ sql, values }) => this.client.$executeRawUnsafe(sql, ...values)));
      const created = { id: record.id, model: record.model, version: record.version, payload: record.payload, createdAt: at, updatedAt: at };
      return { outcome: 'created', record: { ...created, owner: { subject: owner.subject, tenant: owner.tenant } } };
    } catch (error) {
      if (!isUniqueViolation(error)) throw storeFailure('records store failed', error);
    }
    return this.guard('records store failed', () => this.settleCollision(record.id, idempotency, at));
  }

  /** The live key decides: same fingerprint replays, another conflicts; no key means the id was taken. */
  private async settleCollision(id: string, { scope, key, fingerprint }: CreateRecordRequest['idempotency'], at: string): Promise<CreateRecordResult> {
    const [claimed] = await this.read<{ fingerprint: string; record_id: string; record_namespace: string }>(selectLiveClaim(this.dialect, scope, key, at), NO_BUDGET);
    if (claimed === undefined) throw new DomainError('RECORD_CONFLICT', `record ${id} already exists`);
    if (claimed.fingerprint !== fingerprint) {
      throw new DomainError('IDEMPOTENCY_CONFLICT', 'the idempotency key was used for another request');
    }
    const [original] = await this.loadRecords(selectRecord(this.dialect, { id: claimed.record_id, namespace: claimed.record_namespace }));
    return { outcome: 'replayed', record: original! };
  }

  async getRecord(id: string, viewer: Principal, budget: ReadBudget = NO_BUDGET): Promise<StoredRecord | null> {
    const [found] = await this.getRecords([id], viewer, budget);
    return found ?? null;
  }

  /**
   * One statement per IDS_PER_READ distinct ids, in the request's turn: a batch of entity lookups
   * (federation's `_entities`) was one statement per representation, each waiting for the one before.
   * Payloads are read within the bytes the request has left, measured by the database first when
   * the batch's largest possible payloads could pass them (as a page's: pageWithRecords).
   */
  async getRecords(ids: readonly string[], viewer: Principal, budget: ReadBudget = NO_BUDGET): Promise<Array<StoredRecord | null>> {
    // An id no stored record can have is not asked for.
    const wanted = [...new Set(ids)].filter((id) => unstorable(id) === null);
    const found = new Map<string, StoredRecord>();
    for (let first = 0; first < wanted.length; first += IDS_PER_READ) {
      const batch = wanted.slice(first, first + IDS_PER_READ);
      const records = await this.guard('records store failed', () =>
        budget.inTurn(async () => {
          const left = budget.payloadBytesLeft();
          const rows = await this.read<BudgetedRow>(selectVisibleRecords(this.dialect, batch, viewer, batch.length * LARGEST_PAYLOAD_BYTES > left ? left : undefined), budget);
          chargeRows(rows, budget);
          return preferredRows(rows, recordNamespace(viewer)).map(storedRow);
        }),
      );
      for (const record of records) found.set(record.id, record);
    }
    return ids.map((id) => found.get(id) ?? null);
  }

  async queryRecords(filter: RecordFilter, viewer: Principal, within: ModelVersion | null): Promise<StoredRecord[]> {
    return this.guard('records store failed', async () => {
      const read = translateRead(this.dialect, { where: filter.where, sort: filter.sort, within }, viewer, filterSlice(filter), true);
      return (await this.readWindowed<RecordRow>(read, filter.limit, NO_BUDGET)).map(storedRow);
    });
  }

  /**
   * A keyset page (query-translator.ts, translateRead; docs/STORE.md "Keyset pages"): size + 1
   * records from the cursor, the extra one telling whether more follow (backwards: precede).
   */
  async pageRecords(query: RecordQuery, viewer: Principal, page: StorePage, budget: ReadBudget = NO_BUDGET): Promise<RecordPage> {
    return this.guard('records store failed', async () => {
      if (page.keysOnly) return this.pageEnds(query, viewer, page, budget);
      return budget.inTurn(() => this.pageWithRecords(query, viewer, page, budget));
    });
  }

  /**
   * Never more rows than the request may still read (one more is enough to know it would read too
   * many), nor payloads past the characters it may still read or past the process's answer memory
   * it holds for them (kernel/answer-memory.ts): the memory is taken before the statement, the
   * database measures the page's payloads and sends them only within what is held (query-translator.ts,
   * Slice.payloadsLeft). A page larger than the share first held comes without payloads but with
   * their length: exactly that is then held (waiting in line, or SERVER_BUSY) and the page read
   * again. What the page did not need is given back once it is read.
   */
  private async pageWithRecords(query: RecordQuery, viewer: Principal, page: StorePage, budget: ReadBudget): Promise<RecordPage> {
    const limit = Math.min(page.size + 1, budget.recordsLeft() + 1);
    const left = budget.payloadBytesLeft();
    // What the page's payloads may weigh at most, look-ahead included: payloads as large as a request body may be.
    const most = limit * LARGEST_PAYLOAD_BYTES;
    let held = await budget.holdForRead(Math.min(most, left));
    try {
      for (;;) {
        // A page that cannot reach past what is held is read as it is, unmeasured.
        const fetched = await this.pageRows(query, viewer, page, limit, held >= most ? undefined : held, budget);
        const chars = payloadChars(fetched.kept);
        // Past what is left the charge refuses the page; records stored into it between two reads
        // can make it larger again, which the next turn holds (the request's deadline ends them).
        if (withheld(fetched.kept) && chars <= left) {
          budget.releaseAnswer(held);
          held = 0;
          await budget.holdAnswer(chars);
          held = chars;
          continue;
        }
        const kept = Math.min(chars, held);
        budget.releaseAnswer(held - kept);
        held = kept;
        return { records: chargedRecords(fetched.kept, budget), cursors: fetched.cursors, ...pageInfo(page, fetched.more) };
      }
    } catch (error) {
      budget.releaseAnswer(held);
      throw error;
    }
  }

  /** One read of a page's rows (with `payloadsLeft`, measured: query-translator.ts), the look-ahead row set apart. */
  private async pageRows(query: RecordQuery, viewer: Principal, page: StorePage, limit: number, payloadsLeft: number | undefined, budget: ReadBudget) {
    const read = translateRead(this.dialect, query, viewer, { ...pageSlice(page, limit, 0), payloadsLeft }, true);
    const rows = await this.readWindowed<BudgetedRow & KeyColumns>(read, limit, budget);
    const more = rows.length > page.size;
    // Backwards, the extra record is the earliest: the rows come in the order's own direction.
    const kept = !more ? rows : page.backwards ? rows.slice(1) : rows.slice(0, page.size);
    return { kept, more, cursors: kept.map((row) => cursorOf(read.order, row)) };
  }

  /**
   * A keysOnly page: no records, the cursors of its first and last records only, read as keys
   * (no payload): the row at reading position size - 1 with the one after it (whether more
   * follow), and the first row. A short page ends at the last row there is, the first one read
   * the other way. One OFFSET (size - 1), what a REST offset costs; only these rows are returned.
   */
  private async pageEnds(query: RecordQuery, viewer: Principal, page: StorePage, budget: ReadBudget): Promise<RecordPage> {
    const cursors = (limit: number, offset: number, backwards = page.backwards) =>
      this.cursorsOf(translateRead(this.dialect, query, viewer, pageSlice(page, limit, offset, backwards), false), limit, budget);
    if (page.size === 0) return { records: [], cursors: [], ...pageInfo(page, (await cursors(1, 0)).length > 0) };
    const [[start], [end, next]] = await Promise.all([page.size > 1 ? cursors(1, 0) : Promise.resolve([]), cursors(2, page.size - 1)]);
    const last = end ?? (await cursors(1, 0, !page.backwards))[0];
    const ends = [page.size > 1 ? start : last, last].filter((cursor) => cursor !== undefined);
    // Read backwards, the reading's first row is the page's last.
    return { records: [], cursors: [...new Set(page.backwards ? ends.reverse() : ends)], ...pageInfo(page, next !== undefined) };
  }

  /** One SELECT count(*) with the page's conditions and visibility. */
  async countRecords(query: RecordQuery, viewer: Principal, budget: ReadBudget = NO_BUDGET): Promise<number> {
    const { sql, values } = translateCount(this.dialect, query, viewer);
    const [row] = await this.guard('records store failed', () => this.read<{ total: unknown }>({ sql, values }, budget));
    return Number(row!.total); // node-postgres reads a bigint count as text
  }

  /** The cursors of a keys-only read's rows, in reading order. */
  private async cursorsOf(read: Read, limit: number, budget: ReadBudget): Promise<string[]> {
    return (await this.readWindowed<KeyColumns>(read, limit, budget)).map((row) => cursorOf(read.order, row));
  }

  /** A read's rows, found in its index-order window where that holds them all (Read.window), else by its search. */
  private async readWindowed<T>({ search, window }: Read, limit: number, budget: ReadBudget): Promise<T[]> {
    if (window !== null && this.shortcuts.shouldTry(window)) {
      const rows = await this.read<T>(window, budget);
      if (rows.length === limit) return rows;
      this.shortcuts.missed(window);
    }
    return this.read<T>(search, budget);
  }

  /**
   * One statement within the request's time: none starts past the deadline, and one running when
   * it passes is cancelled (PostgreSQL; open-store.ts). Its failure is then the deadline's.
   */
  private async read<T>({ sql, values }: SqlStatement, budget: ReadBudget): Promise<T[]> {
    budget.checkDeadline();
    try {
      return await this.readRows<T>(sql, values, budget);
    } catch (error) {
      throw budget.breach ?? error;
    }
  }

  /**
   * Records with payloads read as JSON text: Prisma's own loading reads a bare-number payload kept
   * as an SQLite REAL to 15 digits.
   */
  private async loadRecords(statement: SqlStatement, budget: ReadBudget = NO_BUDGET): Promise<StoredRecord[]> {
    return budget.inTurn(async () => chargedRecords(await this.read<RecordRow>(statement, budget), budget));
  }

  async grantRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void> {
    await this.guard('records store failed', async () => this.write(insertGrant(this.dialect, await this.ownRecord(recordId, owner), grantee, new Date().toISOString())));
  }

  async revokeRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void> {
    await this.guard('records store failed', async () => this.write(deleteGrant(this.dialect, await this.ownRecord(recordId, owner), grantee)));
  }

  private async write({ sql, values }: SqlStatement): Promise<void> {
    await this.client.$executeRawUnsafe(sql, ...values);
  }

  /**
   * The owner's record with that id, in the owner's namespace when it holds one (an owner without
   * a tenant also owns what the same subject stored within a tenant, DECISIONS section 4).
   * Someone else's record answers like a missing one, so grants reveal nothing.
   */
  private async ownRecord(recordId: string, owner: Principal): Promise<RecordKey> {
    const owned = unstorable(recordId) !== null ? [] : await this.read<RecordKey>(selectOwned(this.dialect, recordId, owner), NO_BUDGET);
    const own = owned.find(({ namespace }) => namespace === recordNamespace(owner)) ?? owned.sort((a, b) => (a.namespace < b.namespace ? -1 : 1))[0];
    if (own === undefined) throw new DomainError('RECORD_NOT_FOUND', `record ${recordId} not found`);
    return own;
  }

  /** Runs a database operation; its failures become STORE_ERROR, domain errors pass through. */
  private async guard<T>(message: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw storeFailure(message, error);
    }
  }
}

/**
 * Rows as records, charged to the request's budget (count and payload characters) before their
 * payloads are parsed. A page read within the payloads left says each payload's length, and comes
 * without payloads when they reach past it (query-translator.ts, withinPayloads): the charge then
 * breaches before any would be parsed.
 */
function chargedRecords(rows: BudgetedRow[], budget: ReadBudget): StoredRecord[] {
  chargeRows(rows, budget);
  return rows.map(storedRow);
}

function chargeRows(rows: BudgetedRow[], budget: ReadBudget): void {
  budget.chargeRecords(rows.length, payloadChars(rows));
}

/**
 * The row each id names among those visible. Two may be visible when a grant shares another
 * tenant's record with an id the viewer's own tenant also holds: the viewer's own namespace wins,
 * then the first namespace in code point order (the databases' "C" and binary collations), so that
 * an id always names the same record.
 */
function preferredRows(rows: BudgetedRow[], own: string): BudgetedRow[] {
  const byId = new Map<string, BudgetedRow>();
  for (const row of rows) {
    const kept = byId.get(row.id);
    if (!kept || (kept.namespace !== own && (row.namespace === own || Buffer.compare(Buffer.from(row.namespace), Buffer.from(kept.namespace)) < 0))) byId.set(row.id, row);
  }
  return [...byId.values()];
}

/** The payload characters of rows, as the database measured them or as they came. */
function payloadChars(rows: BudgetedRow[]): number {
  let chars = 0;
  for (const row of rows) chars += row.payload_chars ?? row.payload.length;
  return chars;
}

/** Whether a measured page came without its payloads (they reached past what was left: all are withheld, or none). */
function withheld(rows: BudgetedRow[]): boolean {
  return rows.length > 0 && rows[0]!.payload === null;
}

function storedRow(row: RecordRow): StoredRecord {
  return {
    id: row.id,
    model: row.model,
    version: row.version,
    payload: JSON.parse(row.payload) as JsonValue,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    owner: { subject: row.created_by_sub, tenant: row.tenant_id },
  };
}

/** The operation's result, or a failure when it has none within `ms` (then left to its own bound). */
async function answeredWithin<T>(ms: number, operation: PromiseLike<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([operation, silence]);
  } finally {
    clearTimeout(timer);
  }
}

/** A unique constraint (here: a primary key) refused a row: the driver adapter's kind of error, on both backends. */
function isUniqueViolation(error: unknown): boolean {
  const { meta } = error as { meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return meta?.driverAdapterError?.cause?.kind === 'UniqueConstraintViolation';
}

/** The slice of a page's query a read takes: `limit` rows from `offset`, between the page's cursors. */
function pageSlice(page: StorePage, limit: number, offset: number, backwards = page.backwards): Slice {
  return { limit, offset, backwards, after: page.after, before: page.before };
}

/**
 * Forwards, more records follow when the extra one was there, and some precede when the page starts
 * after a cursor; backwards the other way round. Relay allows the cursor alone to answer
 * (hasPreviousPage of a forward page "if the server can do so efficiently"): no second read.
 */
function pageInfo(page: StorePage, more: boolean): Pick<RecordPage, 'hasNextPage' | 'hasPreviousPage'> {
  return page.backwards ? { hasNextPage: page.before !== null, hasPreviousPage: more } : { hasNextPage: more, hasPreviousPage: page.after !== null };
}

function cursorOf(order: OrderShape, row: KeyColumns): string {
  return encodeCursor(order, rowKeys(row, order.keys.length));
}
