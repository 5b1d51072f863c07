import { JsonNull } from '@prisma/client/runtime/client';
import type { Prisma, PrismaClient } from '../../../prisma/generated/postgresql/client.js';
import { DomainError } from '../../../kernel/errors.js';
import { canonicalize } from '../../../kernel/records/canonical-json.js';
import type { JsonValue } from '../../../kernel/records/canonical-json.js';
import type { RecordFilter } from '../../../kernel/records/record-filter.js';
import type {
  CreateRecordRequest,
  CreateRecordResult,
  Grantee,
  ModelVersion,
  NewRecord,
  Principal,
  ReadBudget,
  RecordStore,
  StoredRecord,
} from '../domain/records/record-store.js';
import { recordNamespace } from '../domain/records/record-store.js';
import { NO_BUDGET } from '../../../kernel/request-budget.js';
import type { RecordQuery } from '../domain/records/record-store.js';
import type { RecordPage, StorePage } from '../domain/records/record-page.js';
import { filterSlice, rowKeys, selectRecord, selectVisibleRecord, translateCount, translateRead, writeNumbers, writePayload } from './query-translator.js';
import type { Backend, KeyColumns, Read, RecordKey, RecordRow, Slice, SqlStatement } from './query-translator.js';
import { type OrderShape, encodeCursor } from './page-cursor.js';
import { ShortcutMemory } from './shortcut-memory.js';
import { storeFailure } from './store-error.js';
import { requireStorable, requireStorablePayload, unstorable } from '../../../kernel/records/storable-json.js';
import { payloadNumbers, requireIndexable } from './record-numbers.js';

/**
 * What the store uses of a generated Prisma client. The SQLite and PostgreSQL clients are generated
 * from one schema, so either one has this shape (typed here after the PostgreSQL one).
 */
export type StoreClient = Pick<
  PrismaClient,
  '$transaction' | '$queryRawUnsafe' | '$executeRawUnsafe' | '$disconnect' | 'record' | 'idempotencyKey' | 'recordGrant' | 'recordNumber'
>;

type RecordModel = Prisma.RecordGetPayload<object>;

/**
 * Runs a SELECT the translator wrote and returns its rows. On PostgreSQL the driver's pool runs it
 * (the pool the Prisma adapter uses too): Prisma's raw-query path converted every row again, 2 ms
 * of a 100-record page (open-store.ts). On SQLite, Prisma's `$queryRawUnsafe`.
 */
export type RowReader = <T>(sql: string, values: unknown[], signal?: AbortSignal) => Promise<T[]>;

export interface RecordStoreTimes {
  /** How long an idempotency key is remembered. */
  idempotencyTtlMs: number;
  /** How long `ping` waits for the database (DATABASE_PING_TIMEOUT_MS). */
  pingTimeoutMs: number;
}

/** The largest payload a request stores by default (SERVER_REQUEST_MAX_BYTES, 1 MiB): what one row may weigh. */
const LARGEST_PAYLOAD_BYTES = 1024 * 1024;

export class PrismaRecordStore implements RecordStore {
  private readonly shortcuts = new ShortcutMemory();

  constructor(
    readonly backend: Backend,
    private readonly client: StoreClient,
    private readonly readRows: RowReader,
    private readonly times: RecordStoreTimes,
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
  }

  /**
   * One transaction writes the record, its key and its numbers (record-numbers.ts); the primary keys
   * decide between concurrent requests (they may run in other processes). A request that loses waits
   * for the winner's commit, fails on the unique constraint, rolls back, and then reads what the
   * winner stored.
   */
  async createRecord({ record, owner, idempotency }: CreateRecordRequest): Promise<CreateRecordResult> {
    for (const what of ['id', 'model', 'version'] as const) requireStorable(what, record[what]);
    requireStorablePayload(record.payload);
    const now = new Date();
    const { scope, key, fingerprint } = idempotency;
    const stored: RecordKey = { id: record.id, namespace: recordNamespace(owner) };
    try {
      const numbers = payloadNumbers(record.payload);
      requireIndexable(numbers);
      // Written as SQL of ours, each value exactly (query-translator.ts): the payload's numbers, and
      // a payload that is a bare number.
      const exactWrites = [
        ...(numbers.length > 0 ? [writeNumbers(this.backend, stored, numbers)] : []),
        ...(typeof record.payload === 'number' ? [writePayload(this.backend, stored, record.payload)] : []),
      ];
      const [, created] = await this.client.$transaction([
        this.client.idempotencyKey.deleteMany({ where: { scope, key, expiresAt: { lte: now } } }),
        this.client.record.create({
          data: {
            ...stored,
            model: record.model,
            version: record.version,
            payload: jsonInput(record.payload),
            createdBySub: owner.subject,
            tenantId: owner.tenant,
            createdAt: now,
            updatedAt: now,
          },
        }),
        this.client.idempotencyKey.create({
          data: { scope, key, fingerprint, recordId: stored.id, recordNamespace: stored.namespace, createdAt: now, expiresAt: new Date(now.getTime() + this.times.idempotencyTtlMs) },
        }),
        ...exactWrites.map(({ sql, values }) => this.client.$executeRawUnsafe(sql, ...values)),
      ]);
      // What writePayload wrote, not what Prisma read back: Prisma reads an SQLite REAL to 15 digits.
      return { outcome: 'created', record: storedRecord({ ...created, payload: record.payload }) };
    } catch (error) {
      if (!isUniqueViolation(error)) throw storeFailure('records store failed', error);
    }
    return this.guard('records store failed', () => this.settleCollision(record, idempotency, now));
  }

  /** The live key decides: same fingerprint replays, another conflicts; no key means the id was taken. */
  private async settleCollision(
    record: NewRecord,
    { scope, key, fingerprint }: CreateRecordRequest['idempotency'],
    now: Date,
  ): Promise<CreateRecordResult> {
    const claimed = await this.client.idempotencyKey.findUnique({ where: { scope_key: { scope, key } } });
    if (claimed === null || claimed.expiresAt <= now) {
      throw new DomainError('RECORD_CONFLICT', `record ${record.id} already exists`);
    }
    if (claimed.fingerprint !== fingerprint) {
      throw new DomainError('IDEMPOTENCY_CONFLICT', 'the idempotency key was used for another request');
    }
    const [original] = await this.loadRecords(selectRecord(this.backend, { id: claimed.recordId, namespace: claimed.recordNamespace }));
    return { outcome: 'replayed', record: original! };
  }

  async getRecord(id: string, viewer: Principal, budget: ReadBudget = NO_BUDGET): Promise<StoredRecord | null> {
    if (unstorable(id) !== null) return null; // no stored record can have that id
    const [found] = await this.guard('records store failed', () => this.loadRecords(selectVisibleRecord(this.backend, id, viewer), budget));
    return found ?? null;
  }

  async queryRecords(filter: RecordFilter, viewer: Principal, within: ModelVersion | null): Promise<StoredRecord[]> {
    return this.guard('records store failed', async () => {
      const read = translateRead(this.backend, { where: filter.where, sort: filter.sort, within }, viewer, filterSlice(filter), true);
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
   * many), nor payloads much past the bytes it may still read (the database stops at the row that
   * reaches past them: query-translator.ts, Slice.payloadsLeft).
   */
  private async pageWithRecords(query: RecordQuery, viewer: Principal, page: StorePage, budget: ReadBudget): Promise<RecordPage> {
    const limit = Math.min(page.size + 1, budget.recordsLeft() + 1);
    const left = budget.payloadBytesLeft();
    // A page too short to reach the bytes left, even of payloads as large as a request body may be, is read as it is.
    const payloadsLeft = limit * LARGEST_PAYLOAD_BYTES > left ? left : undefined;
    const read = translateRead(this.backend, query, viewer, { ...pageSlice(page, limit, 0), payloadsLeft }, true);
    const rows = await this.readWindowed<RecordRow & KeyColumns>(read, limit, budget);
    const more = rows.length > page.size;
    // Backwards, the extra record is the earliest: the rows come in the order's own direction.
    const kept = !more ? rows : page.backwards ? rows.slice(1) : rows.slice(0, page.size);
    return { records: chargedRecords(kept, budget), cursors: kept.map((row) => cursorOf(read.order, row)), ...pageInfo(page, more) };
  }

  /**
   * A keysOnly page: no records, the cursors of its first and last records only, read as keys
   * (no payload): the row at reading position size - 1 with the one after it (whether more
   * follow), and the first row. A short page ends at the last row there is, the first one read
   * the other way. One OFFSET (size - 1), what a REST offset costs; only these rows are returned.
   */
  private async pageEnds(query: RecordQuery, viewer: Principal, page: StorePage, budget: ReadBudget): Promise<RecordPage> {
    const cursors = (limit: number, offset: number, backwards = page.backwards) =>
      this.cursorsOf(translateRead(this.backend, query, viewer, pageSlice(page, limit, offset, backwards), false), limit, budget);
    if (page.size === 0) return { records: [], cursors: [], ...pageInfo(page, (await cursors(1, 0)).length > 0) };
    const [[start], [end, next]] = await Promise.all([page.size > 1 ? cursors(1, 0) : Promise.resolve([]), cursors(2, page.size - 1)]);
    const last = end ?? (await cursors(1, 0, !page.backwards))[0];
    const ends = [page.size > 1 ? start : last, last].filter((cursor) => cursor !== undefined);
    // Read backwards, the reading's first row is the page's last.
    return { records: [], cursors: [...new Set(page.backwards ? ends.reverse() : ends)], ...pageInfo(page, next !== undefined) };
  }

  /** One SELECT count(*) with the page's conditions and visibility. */
  async countRecords(query: RecordQuery, viewer: Principal, budget: ReadBudget = NO_BUDGET): Promise<number> {
    const { sql, values } = translateCount(this.backend, query, viewer);
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
      return await this.readRows<T>(sql, values, budget.signal);
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
    requireStorable('grantee', grantee.id);
    await this.guard('records store failed', async () => {
      const record = await this.ownRecord(recordId, owner);
      try {
        await this.client.recordGrant.create({
          data: { recordId, recordNamespace: record.namespace, granteeKind: grantee.kind, grantee: grantee.id, createdAt: new Date() },
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error; // already granted
      }
    });
  }

  async revokeRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void> {
    requireStorable('grantee', grantee.id);
    await this.guard('records store failed', async () => {
      const record = await this.ownRecord(recordId, owner);
      await this.client.recordGrant.deleteMany({ where: { recordId, recordNamespace: record.namespace, granteeKind: grantee.kind, grantee: grantee.id } });
    });
  }

  /**
   * The owner's record with that id, in the owner's namespace when it holds one (an owner without
   * a tenant also owns what the same subject stored within a tenant, DECISIONS section 4).
   * Someone else's record answers like a missing one, so grants reveal nothing.
   */
  private async ownRecord(recordId: string, owner: Principal): Promise<RecordKey> {
    const owned = unstorable(recordId) !== null ? [] : await this.client.record.findMany({ where: { id: recordId, ...ownedBy(owner) }, select: { id: true, namespace: true } });
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

/** The owner of a record, within the tenant if the owner has one (DECISIONS section 4). */
function ownedBy(owner: Principal): Prisma.RecordWhereInput {
  return owner.tenant === null ? { createdBySub: owner.subject } : { createdBySub: owner.subject, tenantId: owner.tenant };
}

/** Canonical JSON on both backends (canonical-json.ts); Prisma spells a JSON null `JsonNull`. */
function jsonInput(payload: JsonValue): Prisma.InputJsonValue | typeof JsonNull {
  return payload === null ? JsonNull : (canonicalize(payload) as Prisma.InputJsonValue);
}

/** Rows as records, charged to the request's budget (count and payload bytes) before their payloads are parsed. */
function chargedRecords(rows: RecordRow[], budget: ReadBudget): StoredRecord[] {
  let bytes = 0;
  for (const row of rows) bytes += row.payload.length;
  budget.chargeRecords(rows.length, bytes);
  return rows.map(storedRow);
}

function storedRow(row: RecordRow): StoredRecord {
  return storedRecord({
    id: row.id,
    model: row.model,
    version: row.version,
    payload: JSON.parse(row.payload) as RecordModel['payload'],
    createdBySub: row.created_by_sub,
    tenantId: row.tenant_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

function storedRecord(row: Omit<RecordModel, 'namespace' | 'tieBreak'>): StoredRecord {
  return {
    id: row.id,
    model: row.model,
    version: row.version,
    payload: row.payload as JsonValue,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    owner: { subject: row.createdBySub, tenant: row.tenantId },
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

/** P2002: a unique constraint (here: a primary key) refused the row. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
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
