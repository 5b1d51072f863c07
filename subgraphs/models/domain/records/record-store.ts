import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../../kernel/records/canonical-json.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { requireStorable, requireStorablePayload } from '../../../../kernel/records/storable-json.js';
import { type PayloadNumber, payloadNumbers, requireIndexable } from './record-numbers.js';
import type { RecordFilter } from '../../../../kernel/records/record-filter.js';
import type { RecordPage, StorePage } from './record-page.js';
import type { RequestBudget } from '../../../../kernel/request-budget.js';

/**
 * What one request may still read (kernel/request-budget.ts): the store charges every record it
 * reads (and its payload's bytes) and reads no more than are left; a statement stops when the
 * request's time is up (`signal`). A read without one (tests, the store's own work) is unbounded.
 */
export type ReadBudget = Pick<RequestBudget, 'breach' | 'signal' | 'recordsLeft' | 'payloadBytesLeft' | 'inTurn' | 'chargeRecords' | 'checkDeadline' | 'holdForRead' | 'holdAnswer' | 'releaseAnswer'>;

/**
 * The records store as the domain sees it (DECISIONS sections 3 and 4). One implementation,
 * sql-record-store.ts, serves SQLite and PostgreSQL with the same behaviour; openRecordStore
 * (open-store.ts) picks the backend from DATABASE_URL. Failures of the database are DomainError
 * STORE_ERROR, whose message never carries SQL or driver text.
 */
export interface RecordStore {
  /** The database's SQL dialect, as the adapter speaks it; its name is what the status reports. */
  readonly dialect: { readonly name: string };
  /** Resolves when the database answers; otherwise throws STORE_ERROR. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Stores a record exactly once per idempotency key, also under concurrency and across processes.
   * Throws IDEMPOTENCY_CONFLICT when the key was used with another fingerprint, RECORD_CONFLICT when
   * the id exists in the owner's namespace under another key; nothing is stored then, and the key
   * stays free.
   */
  createRecord(request: CreateRecordRequest): Promise<CreateRecordResult>;
  /**
   * The record with that id that `viewer` may read (section 4), else null. Ids are unique within a
   * namespace (recordNamespace); when a grant lets the viewer read another tenant's record with an
   * id the viewer's own namespace also holds, the viewer's own is the one meant.
   */
  getRecord(id: string, viewer: Principal, budget?: ReadBudget): Promise<StoredRecord | null>;
  /** `getRecord` of each id, in their order, in as few reads as the store can (federation's entity lookups come in batches). */
  getRecords(ids: readonly string[], viewer: Principal, budget?: ReadBudget): Promise<Array<StoredRecord | null>>;
  /** The records `viewer` may read that match the filter; `within` limits them to one model version. */
  queryRecords(filter: RecordFilter, viewer: Principal, within: ModelVersion | null): Promise<StoredRecord[]>;
  /**
   * One page of the records `viewer` may read that meet the query, in its order with ties by
   * `createdAt`, then `id`: keyset pages, so a page stays right while records are inserted and a
   * late page costs what the first does. A cursor that is not one of this order is BAD_REQUEST
   * with details `{at: 'after' | 'before', reason}`. `keysOnly`: no record is read; `records` is
   * empty and `cursors` holds the cursors of the page's first and last records only (one when they
   * are the same record, none for an empty page): what `pageInfo` needs, at any size.
   */
  pageRecords(query: RecordQuery, viewer: Principal, page: StorePage, budget?: ReadBudget): Promise<RecordPage>;
  /** How many records `viewer` may read meet the query. */
  countRecords(query: RecordQuery, viewer: Principal, budget?: ReadBudget): Promise<number>;
  /** Lets a subject or a tenant read a record (the owner's own with that id); only its owner may. Throws RECORD_NOT_FOUND otherwise. */
  grantRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void>;
  /** Withdraws a grant (no-op when absent); only the owner may. Throws RECORD_NOT_FOUND otherwise. */
  revokeRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void>;
}

/** Which records, in which order: a filter's conditions and sort keys, within one model version or all. */
export interface RecordQuery {
  where: RecordFilter['where'];
  sort: RecordFilter['sort'];
  within: ModelVersion | null;
}

/** Who acts: the authenticated subject and tenant (kernel/identity's Identity satisfies it). */
export interface Principal {
  subject: string;
  tenant: string | null;
}

export interface ModelVersion {
  model: string;
  version: string;
}

export interface NewRecord extends ModelVersion {
  id: string;
  payload: JsonValue;
}

export interface StoredRecord extends NewRecord {
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  updatedAt: string;
  /** Who created it (section 4's ownership metadata); never part of a REST record. */
  owner: Principal;
}

export interface IdempotencyClaim {
  /** idempotencyScope(caller). */
  scope: string;
  /** The Idempotency-Key header. */
  key: string;
  /** requestFingerprint(model, version, payload). */
  fingerprint: string;
}

/**
 * A record checked once, before the store sees it (storableRecord): its names and payload are
 * storable on both backends, its payload is canonical JSON text (written as it is), and its numbers
 * are those the `record_numbers` index holds.
 */
export interface StorableRecord extends NewRecord {
  payloadJson: string;
  numbers: PayloadNumber[];
}

export interface CreateRecordRequest {
  record: StorableRecord;
  owner: Principal;
  idempotency: IdempotencyClaim;
}

/** `replayed`: the key was used before with the same fingerprint; `record` is the original. */
export interface CreateRecordResult {
  outcome: 'created' | 'replayed';
  record: StoredRecord;
}

export type Grantee = { kind: 'subject' | 'tenant'; id: string };

/**
 * Record ids are unique within the owner's tenant (or among owners without one, ''; identity never
 * yields a blank tenant), not across tenants: storing an id that another tenant holds succeeds, so
 * a conflict never tells that another tenant holds it (issue 8, cross-tenant; docs/DECISIONS.md).
 */
export function recordNamespace(owner: Principal): string {
  return owner.tenant ?? '';
}

/** Keys are scoped to the caller: subject and tenant, unambiguously joined. */
export function idempotencyScope(caller: Principal): string {
  return JSON.stringify([caller.subject, caller.tenant]);
}

/**
 * The record as the store writes it, or BAD_REQUEST naming what no backend could store exactly
 * (storable-json.ts) or index (record-numbers.ts). The payload is canonicalised here, once: the
 * store writes that text and the fingerprint hashes it.
 */
export function storableRecord(record: NewRecord): StorableRecord {
  for (const what of ['id', 'model', 'version'] as const) requireStorable(what, record[what]);
  requireStorablePayload(record.payload);
  const numbers = payloadNumbers(record.payload);
  requireIndexable(numbers);
  return { ...record, payloadJson: canonicalJson(record.payload), numbers };
}

/**
 * Model, version and the request's canonical JSON (the payload's, or `[id, payload]`'s), key order
 * ignored: a retry of the same request has the same one. The bytes hashed are canonicalJson([model,
 * version, request]), as keys stored before were fingerprinted.
 */
export function requestFingerprint(model: string, version: string, requestJson: string): string {
  return createHash('sha256')
    .update(`[${JSON.stringify(model)},${JSON.stringify(version)},${requestJson}]`)
    .digest('hex');
}
