import { JsonNull } from '@prisma/client/runtime/client';
import type { Prisma, PrismaClient } from '../../../prisma/generated/postgresql/client.js';
import { DomainError } from '../../../kernel/errors.js';
import { canonicalize } from '../domain/records/canonical-json.js';
import type { JsonValue } from '../domain/records/canonical-json.js';
import type { RecordFilter } from '../domain/records/record-filter.js';
import type {
  CreateRecordRequest,
  CreateRecordResult,
  Grantee,
  ModelVersion,
  NewRecord,
  Principal,
  RecordStore,
  StoredRecord,
} from '../domain/records/record-store.js';
import { recordNamespace } from '../domain/records/record-store.js';
import { selectRecord, selectVisibleRecord, translateIndexOrderQuery, translateQuery, writeNumbers, writePayload } from './query-translator.js';
import type { Backend, RecordKey, RecordRow, SqlStatement } from './query-translator.js';
import { ShortcutMemory } from './shortcut-memory.js';
import { storeFailure } from './store-error.js';
import { requireStorable, requireStorablePayload, unstorable } from '../domain/records/storable-json.js';
import { payloadNumbers } from './record-numbers.js';

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
export type RowReader = <T>(sql: string, values: unknown[]) => Promise<T[]>;

export class PrismaRecordStore implements RecordStore {
  private readonly shortcuts = new ShortcutMemory();

  constructor(
    readonly backend: Backend,
    private readonly client: StoreClient,
    private readonly readRows: RowReader,
    private readonly idempotencyTtlMs: number,
  ) {}

  async ping(): Promise<void> {
    await this.guard('records store unreachable', () => this.client.$queryRawUnsafe('SELECT 1'));
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
          data: { scope, key, fingerprint, recordId: stored.id, recordNamespace: stored.namespace, createdAt: now, expiresAt: new Date(now.getTime() + this.idempotencyTtlMs) },
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

  async getRecord(id: string, viewer: Principal): Promise<StoredRecord | null> {
    if (unstorable(id) !== null) return null; // no stored record can have that id
    const [found] = await this.guard('records store failed', () => this.loadRecords(selectVisibleRecord(this.backend, id, viewer)));
    return found ?? null;
  }

  /** A page found in a window of the records in index order where that is enough, else by a search of all. */
  async queryRecords(filter: RecordFilter, viewer: Principal, within: ModelVersion | null): Promise<StoredRecord[]> {
    return this.guard('records store failed', async () => {
      const window = translateIndexOrderQuery(this.backend, filter, viewer, within);
      if (window !== null && this.shortcuts.shouldTry(window)) {
        const page = await this.loadRecords(window);
        if (page.length === filter.limit) return page;
        this.shortcuts.missed(window);
      }
      return this.loadRecords(translateQuery(this.backend, filter, viewer, within));
    });
  }

  /**
   * Records with payloads read as JSON text: Prisma's own loading reads a bare-number payload kept
   * as an SQLite REAL to 15 digits.
   */
  private async loadRecords({ sql, values }: SqlStatement): Promise<StoredRecord[]> {
    return (await this.readRows<RecordRow>(sql, values)).map(storedRow);
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

function storedRecord(row: Omit<RecordModel, 'namespace'>): StoredRecord {
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

/** P2002: a unique constraint (here: a primary key) refused the row. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
}
