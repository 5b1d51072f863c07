import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../../kernel/errors.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { requireFittingNames, requireStorable } from '../../../../kernel/records/storable-json.js';
import {
  type Grantee,
  type ModelVersion,
  type NewRecord,
  type Principal,
  type RecordStore,
  type StorableRecord,
  type StoredRecord,
  idempotencyScope,
  requestFingerprint,
  storableRecord,
} from './record-store.js';
import type { ReadBudget, RecordQuery } from './record-store.js';
import { PAGE_SIZE, type PageRequest, type RecordPage, readPage } from './record-page.js';
import { parseRecordFilter } from '../../../../kernel/records/record-filter.js';

/** Told when a create is answered with the original record (metrics); the domain does not know who listens. */
export type { RecordQuery };

export interface RecordObserver {
  replayed(): void;
}

export interface RecordCreation {
  record: StoredRecord;
  /** The idempotency key was used before for the same request: `record` is the original. */
  replayed: boolean;
}

/** The payload of a core record is a JSON object (doc 01). */
export type JsonObject = { [key: string]: JsonValue };

export interface Readiness {
  ready: boolean;
  reasons: string[];
}

/**
 * Records (DECISIONS sections 3 "create"/"query" and 4): the core's validated `:create` and scoped
 * `:query`, the records backend's store/get/query, and read grants. The caller is already
 * authorized for the operation (`records.create`, `records.read`, … in kernel/identity, checked
 * where the request enters); visibility and exactly-once storage are the store's (record-store.ts).
 */
export class RecordService {
  constructor(
    private readonly registry: Pick<ModelRegistry, 'get' | 'validate'>,
    private readonly store: RecordStore,
    private readonly observer?: RecordObserver,
  ) {}

  /**
   * Core `:create`: the payload must pass the model version's validators (nothing is stored
   * otherwise); the record id is `payload.id` when it is a non-empty string, else a new UUID.
   */
  async create(caller: Principal, target: ModelVersion, payload: JsonObject, idempotencyKey: string | undefined): Promise<RecordCreation> {
    const key = requiredKey(idempotencyKey);
    const record = { id: recordIdOf(payload), ...target, payload };
    requireFittingNames({ 'Idempotency-Key': key, 'payload.id': record.id, model: record.model, version: record.version, ...ownerNames(caller) });
    const report = await this.registry.validate(target.model, target.version, payload);
    if (!report.passed) {
      throw new DomainError('VALIDATION_FAILED', `the payload does not pass the validators of model ${target.model} version ${target.version}`, report);
    }
    const storable = storableRecord(record);
    return this.save(caller, storable, key, requestFingerprint(target.model, target.version, storable.payloadJson));
  }

  /**
   * The records backend's `POST /records`: the caller names the id, the payload is any JSON value,
   * and no model is consulted. The id is part of the request, so it joins the fingerprint: the same
   * key with another id is a conflict, not a replay of the first id. (The array wrapper never equals
   * a core payload, which is an object, so the two kinds of request cannot pass for each other.)
   */
  async storeRecord(caller: Principal, record: NewRecord, idempotencyKey: string | undefined): Promise<RecordCreation> {
    const key = requiredKey(idempotencyKey);
    if (record.id === '') throw new DomainError('BAD_REQUEST', 'the record id must not be empty', { field: 'id' });
    requireFittingNames({ 'Idempotency-Key': key, id: record.id, model: record.model, version: record.version, ...ownerNames(caller) });
    const storable = storableRecord(record);
    return this.save(caller, storable, key, requestFingerprint(record.model, record.version, `[${JSON.stringify(record.id)},${storable.payloadJson}]`));
  }

  /** A record the caller may read; RECORD_NOT_FOUND when it does not exist or is not visible. */
  async get(caller: Principal, id: string): Promise<StoredRecord> {
    const record = await this.find(caller, id);
    if (record === null) throw new DomainError('RECORD_NOT_FOUND', `record ${id} not found`, { id });
    return record;
  }

  /** Like `get`, with null for a record that is missing or not visible (federation entity lookups). */
  async find(caller: Principal, id: string, budget?: ReadBudget): Promise<StoredRecord | null> {
    return this.store.getRecord(id, caller, budget);
  }

  /** `find` of each id, in their order, read together. */
  async findMany(caller: Principal, ids: readonly string[], budget?: ReadBudget): Promise<Array<StoredRecord | null>> {
    return this.store.getRecords(ids, caller, budget);
  }

  /**
   * A page of the records the caller may read that meet the query, in its order (ties by creation,
   * then id), with a cursor per record. `keysOnly`: the caller needs only where the page stands
   * (its cursors), not the records' payloads.
   */
  async page(caller: Principal, query: RecordQuery, request: PageRequest, keysOnly = false, budget?: ReadBudget): Promise<RecordPage> {
    return this.store.pageRecords(query, caller, readPage(request, keysOnly), budget);
  }

  /**
   * The REST `:query` (DECISIONS section 3 "query"): the filter's JSON form `{where, sort, limit,
   * offset}`, parsed here and nowhere else (a malformed one is BAD_REQUEST with the contract's
   * details), then `limit` records after the first `offset`. Those are skipped as keyset pages of
   * keys only, PAGE_SIZE.max at a time (no payload is read), so the answer is exactly the OFFSET
   * query's, in one request.
   */
  async pageByFilter(caller: Principal, rawFilter: unknown, within: ModelVersion | null, keysOnly = false, budget?: ReadBudget): Promise<{ query: RecordQuery; page: RecordPage }> {
    const { where, sort, limit, offset } = parseRecordFilter(rawFilter);
    const query: RecordQuery = { where, sort, within };
    const after = await this.skip(caller, query, offset, budget);
    // Nothing (left) to skip: nothing follows either.
    if (after === undefined) return { query, page: { records: [], cursors: [], hasNextPage: false, hasPreviousPage: true } };
    return { query, page: await this.page(caller, query, { first: limit, after }, keysOnly, budget) };
  }

  /** The cursor after the first `offset` records of the query (null: none to skip), or undefined when fewer are there. */
  private async skip(caller: Principal, query: RecordQuery, offset: number, budget?: ReadBudget): Promise<string | null | undefined> {
    let after: string | null = null;
    for (let left = offset; left > 0;) {
      const first = Math.min(left, PAGE_SIZE.max);
      const { cursors, hasNextPage } = await this.page(caller, query, { first, after }, true, budget);
      left -= first;
      const end = cursors.at(-1);
      if (end === undefined || (left > 0 && !hasNextPage)) return undefined;
      after = end;
    }
    return after;
  }

  /** How many records the caller may read meet the query. */
  async count(caller: Principal, query: RecordQuery, budget?: ReadBudget): Promise<number> {
    return this.store.countRecords(query, caller, budget);
  }

  /** Lets a subject or a tenant read one of the caller's records; anyone else's is RECORD_NOT_FOUND. */
  async grantRead(caller: Principal, recordId: string, grantee: GranteeChoice): Promise<void> {
    const granted = granteeOf(grantee);
    requireFittingNames({ [granted.kind]: granted.id });
    requireStorable('grantee', granted.id);
    await this.store.grantRead(recordId, granted, caller);
  }

  async revokeRead(caller: Principal, recordId: string, grantee: GranteeChoice): Promise<void> {
    const granted = granteeOf(grantee);
    requireStorable('grantee', granted.id);
    await this.store.revokeRead(recordId, granted, caller);
  }

  /**
   * The record's owner, shown to that owner only (null for a reader through a grant): who created a
   * record is ownership metadata that section 4 never returns on REST. "Owner" is the store's rule:
   * same subject and, when the caller has a tenant, same tenant.
   */
  ownerShownTo(caller: Principal, record: StoredRecord): Principal | null {
    const { owner } = record;
    const owns = owner.subject === caller.subject && (caller.tenant === null || owner.tenant === caller.tenant);
    return owns ? owner : null;
  }

  /** The records backend's `/ready`: the store answers. */
  async readiness(): Promise<Readiness> {
    return this.store.ping().then(
      () => ({ ready: true, reasons: [] }),
      () => ({ ready: false, reasons: ['the records store does not answer'] }),
    );
  }

  private async save(caller: Principal, record: StorableRecord, key: string, fingerprint: string): Promise<RecordCreation> {
    const result = await this.store.createRecord({ record, owner: caller, idempotency: { scope: idempotencyScope(caller), key, fingerprint } });
    const replayed = result.outcome === 'replayed';
    if (replayed) this.observer?.replayed();
    return { record: result.record, replayed };
  }
}

/** Exactly one of the two. */
export interface GranteeChoice {
  subject?: string | null;
  tenant?: string | null;
}

function granteeOf({ subject, tenant }: GranteeChoice): Grantee {
  const named: Grantee[] = [];
  if (subject !== undefined && subject !== null) named.push({ kind: 'subject', id: subject });
  if (tenant !== undefined && tenant !== null) named.push({ kind: 'tenant', id: tenant });
  const [grantee] = named;
  if (named.length !== 1 || grantee!.id === '') throw new DomainError('BAD_REQUEST', 'name exactly one non-empty grantee: a subject or a tenant');
  return grantee!;
}

/** The owner's names a stored record carries (its namespace, ownership and idempotency scope). */
function ownerNames(caller: Principal): Record<string, string> {
  return { 'caller.subject': caller.subject, 'caller.tenant': caller.tenant ?? '' };
}

/** DECISIONS section 3: the key is required; a blank one counts as absent. */
function requiredKey(key: string | undefined): string {
  if (key === undefined || key.trim() === '') throw new DomainError('MISSING_IDEMPOTENCY_KEY', 'an Idempotency-Key is required to create a record');
  return key;
}

function recordIdOf(payload: JsonObject): string {
  return typeof payload.id === 'string' && payload.id !== '' ? payload.id : randomUUID();
}
