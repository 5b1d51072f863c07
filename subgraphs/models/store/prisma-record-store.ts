import { JsonNull } from '@prisma/client/runtime/client';
import type { Prisma, PrismaClient } from '../../../prisma/generated/postgresql/client.js';
import { DomainError } from '../../../kernel/errors.js';
import { canonicalize } from './canonical-json.js';
import type { JsonValue } from './canonical-json.js';
import type { RecordFilter } from './record-filter.js';
import type {
  CreateRecordRequest,
  CreateRecordResult,
  Grantee,
  ModelVersion,
  NewRecord,
  Principal,
  RecordStore,
  StoredRecord,
} from './record-store.js';
import { selectRecords, translateQuery, writePayload } from './query-translator.js';
import type { Backend, MatchRow, RecordRow } from './query-translator.js';
import { storeFailure } from './store-error.js';
import { requireStorable, requireStorablePayload, unstorable } from './storable-json.js';
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

export class PrismaRecordStore implements RecordStore {
  constructor(
    readonly backend: Backend,
    private readonly client: StoreClient,
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
    try {
      const exactPayload = typeof record.payload === 'number' ? [writePayload(this.backend, record.id, record.payload)] : [];
      const [, created] = await this.client.$transaction([
        this.client.idempotencyKey.deleteMany({ where: { scope, key, expiresAt: { lte: now } } }),
        this.client.record.create({
          data: {
            id: record.id,
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
          data: { scope, key, fingerprint, recordId: record.id, createdAt: now, expiresAt: new Date(now.getTime() + this.idempotencyTtlMs) },
        }),
        this.client.recordNumber.createMany({
          data: payloadNumbers(record.payload).map(({ path, value }) => ({ recordId: record.id, path, value })),
        }),
        ...exactPayload.map(({ sql, values }) => this.client.$executeRawUnsafe(sql, ...values)),
      ]);
      // What writePayload wrote, not what Prisma read back: Prisma reads an SQLite REAL to 15 digits.
      return { outcome: 'created', record: stored({ ...created, payload: record.payload }) };
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
    const [original] = await this.loadRecords([claimed.recordId]);
    return { outcome: 'replayed', record: original };
  }

  async getRecord(id: string, viewer: Principal): Promise<StoredRecord | null> {
    if (unstorable(id) !== null) return null; // no stored record can have that id
    const [found] = await this.guard('records store failed', () => this.loadRecords([id], viewer));
    return found ?? null;
  }

  /** The translated query finds the page of ids in order; a second SELECT loads those records. */
  async queryRecords(filter: RecordFilter, viewer: Principal, within: ModelVersion | null): Promise<StoredRecord[]> {
    const { sql, values } = translateQuery(this.backend, filter, viewer, within);
    return this.guard('records store failed', async () => {
      const ids = (await this.client.$queryRawUnsafe<MatchRow[]>(sql, ...values)).map((row) => row.id);
      if (ids.length === 0) return [];
      const found = new Map((await this.loadRecords(ids)).map((record) => [record.id, record]));
      return ids.map((id) => found.get(id)!);
    });
  }

  /**
   * Records by id, those `viewer` may read when given, with payloads read as JSON text: Prisma's own
   * loading reads a bare-number payload kept as an SQLite REAL to 15 digits.
   */
  private async loadRecords(ids: string[], viewer?: Principal): Promise<StoredRecord[]> {
    const { sql, values } = selectRecords(this.backend, ids, viewer);
    return (await this.client.$queryRawUnsafe<RecordRow[]>(sql, ...values)).map(storedRow);
  }

  async grantRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void> {
    requireStorable('grantee', grantee.id);
    await this.guard('records store failed', async () => {
      await this.assertOwner(recordId, owner);
      try {
        await this.client.recordGrant.create({
          data: { recordId, granteeKind: grantee.kind, grantee: grantee.id, createdAt: new Date() },
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error; // already granted
      }
    });
  }

  async revokeRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void> {
    requireStorable('grantee', grantee.id);
    await this.guard('records store failed', async () => {
      await this.assertOwner(recordId, owner);
      await this.client.recordGrant.deleteMany({ where: { recordId, granteeKind: grantee.kind, grantee: grantee.id } });
    });
  }

  /** Someone else's record answers like a missing one, so grants reveal nothing. */
  private async assertOwner(recordId: string, owner: Principal): Promise<void> {
    const owned = unstorable(recordId) !== null ? null : await this.client.record.findFirst({ where: { id: recordId, ...ownedBy(owner) }, select: { id: true } });
    if (owned === null) throw new DomainError('RECORD_NOT_FOUND', `record ${recordId} not found`);
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
  return stored({
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

function stored(row: RecordModel): StoredRecord {
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
