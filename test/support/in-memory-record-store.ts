import { DomainError } from '../../kernel/errors.js';
import { type JsonValue, canonicalJson } from '../../kernel/records/canonical-json.js';
import type { Condition, Field, RecordFilter } from '../../kernel/records/record-filter.js';
import {
  type CreateRecordRequest,
  type CreateRecordResult,
  type Grantee,
  type IdempotencyClaim,
  type ModelVersion,
  type Principal,
  type RecordStore,
  type StoredRecord,
  recordNamespace,
} from '../../subgraphs/models/domain/records/record-store.js';
import type { RecordQuery } from '../../subgraphs/models/domain/records/record-store.js';
import type { RecordPage, StorePage } from '../../subgraphs/models/domain/records/record-page.js';

/** A record as this store holds it: with its namespace and the grants on it. */
interface Entry {
  record: StoredRecord;
  namespace: string;
  /** grantKey of each grantee. */
  grants: Set<string>;
}

/**
 * The RecordStore port in memory, for tests of the domain without a database: the port's rules as
 * record-store.ts documents them (idempotency by scope and fingerprint, ids unique per namespace,
 * read visibility and owners' grants, the viewer's own namespace first) over plain maps. What it
 * leaves out, a test cannot meet by accident: keys never expire, and a filter with a sort or an
 * operator other than eq, ne, in and exists throws. A closed store answers nothing (STORE_ERROR),
 * which is how a test sees a store that does not answer. Records go in and out as copies.
 */
export class InMemoryRecordStore implements RecordStore {
  /** The port names the two databases; this store orders text in code point order, as SQLite does. */
  readonly dialect = { name: 'sqlite' };
  private readonly records = new Map<string, Entry>();
  /** The record key each idempotency claim stored, under claimKey. */
  private readonly claims = new Map<string, { fingerprint: string; record: string }>();
  private closed = false;

  async ping(): Promise<void> {
    this.requireOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  async createRecord({ record, owner, idempotency }: CreateRecordRequest): Promise<CreateRecordResult> {
    this.requireOpen();
    const claim = this.claims.get(claimKey(idempotency));
    if (claim !== undefined) {
      if (claim.fingerprint !== idempotency.fingerprint) throw new DomainError('IDEMPOTENCY_CONFLICT', 'the idempotency key was used for another request');
      return { outcome: 'replayed', record: structuredClone(this.records.get(claim.record)!.record) };
    }
    const namespace = recordNamespace(owner);
    const key = recordKey(record.id, namespace);
    if (this.records.has(key)) throw new DomainError('RECORD_CONFLICT', `record ${record.id} already exists`);
    const now = new Date().toISOString();
    const { id, model, version, payload } = structuredClone(record);
    const stored: StoredRecord = { id, model, version, payload, createdAt: now, updatedAt: now, owner: { ...owner } };
    this.records.set(key, { record: stored, namespace, grants: new Set() });
    this.claims.set(claimKey(idempotency), { fingerprint: idempotency.fingerprint, record: key });
    return { outcome: 'created', record: structuredClone(stored) };
  }

  async getRecord(id: string, viewer: Principal): Promise<StoredRecord | null> {
    this.requireOpen();
    const found = preferred(
      this.withId(id).filter((entry) => visibleTo(entry, viewer)),
      viewer,
    );
    return found === undefined ? null : structuredClone(found.record);
  }

  async getRecords(ids: readonly string[], viewer: Principal): Promise<Array<StoredRecord | null>> {
    return Promise.all(ids.map((id) => this.getRecord(id, viewer)));
  }

  async queryRecords(filter: RecordFilter, viewer: Principal, within: ModelVersion | null): Promise<StoredRecord[]> {
    this.requireOpen();
    if (filter.sort.length > 0) throw new Error('the in-memory record store keeps the default order only');
    const found = [...this.records.values()].filter(
      (entry) => visibleTo(entry, viewer) && (within === null || isIn(entry.record, within)) && filter.where.every((condition) => meets(entry.record, condition)),
    );
    return found
      .sort(byDefaultOrder)
      .slice(filter.offset, filter.offset + filter.limit)
      .map((entry) => structuredClone(entry.record));
  }
  /** Pages by position (the cursor is the position): the domain's rules, not the SQL stores' keyset. */
  async pageRecords(query: RecordQuery, viewer: Principal, page: StorePage): Promise<RecordPage> {
    const all = await this.queryRecords({ where: query.where, sort: query.sort, limit: Number.MAX_SAFE_INTEGER, offset: 0 }, viewer, query.within);
    const position = (cursor: string) => Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    const end = page.before !== null ? position(page.before) : all.length;
    const start = page.backwards ? Math.max(0, end - page.size) : page.after !== null ? position(page.after) + 1 : 0;
    const records = all.slice(start, page.backwards ? end : start + page.size);
    const cursors = records.map((_, index) => Buffer.from(String(start + index)).toString('base64url'));
    const info = { hasNextPage: start + records.length < all.length, hasPreviousPage: start > 0 };
    // keysOnly (the port's contract): no records, the cursors of the first and last only.
    if (page.keysOnly) return { records: [], cursors: [...new Set([cursors[0], cursors.at(-1)].filter((cursor) => cursor !== undefined))], ...info };
    return { records, cursors, ...info };
  }

  async countRecords(query: RecordQuery, viewer: Principal): Promise<number> {
    return (await this.queryRecords({ where: query.where, sort: query.sort, limit: Number.MAX_SAFE_INTEGER, offset: 0 }, viewer, query.within)).length;
  }

  async grantRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void> {
    this.ownEntry(recordId, owner).grants.add(grantKey(grantee));
  }

  async revokeRead(recordId: string, grantee: Grantee, owner: Principal): Promise<void> {
    this.ownEntry(recordId, owner).grants.delete(grantKey(grantee));
  }

  /** The owner's record with that id, its own namespace first; anyone else's is missing. */
  private ownEntry(recordId: string, owner: Principal): Entry {
    this.requireOpen();
    const own = preferred(
      this.withId(recordId).filter((entry) => owns(owner, entry.record)),
      owner,
    );
    if (own === undefined) throw new DomainError('RECORD_NOT_FOUND', `record ${recordId} not found`);
    return own;
  }

  private withId(id: string): Entry[] {
    return [...this.records.values()].filter((entry) => entry.record.id === id);
  }

  private requireOpen(): void {
    if (this.closed) throw new DomainError('STORE_ERROR', 'records store unreachable');
  }
}

function claimKey({ scope, key }: IdempotencyClaim): string {
  return JSON.stringify([scope, key]);
}

function recordKey(id: string, namespace: string): string {
  return JSON.stringify([id, namespace]);
}

function grantKey({ kind, id }: Grantee): string {
  return JSON.stringify([kind, id]);
}

/** DECISIONS section 4: same subject and, when the principal has a tenant, same tenant. */
function owns(principal: Principal, record: StoredRecord): boolean {
  return record.owner.subject === principal.subject && (principal.tenant === null || record.owner.tenant === principal.tenant);
}

function visibleTo(entry: Entry, viewer: Principal): boolean {
  const grantees: Grantee[] = [{ kind: 'subject', id: viewer.subject }];
  if (viewer.tenant !== null) grantees.push({ kind: 'tenant', id: viewer.tenant });
  return owns(viewer, entry.record) || grantees.some((grantee) => entry.grants.has(grantKey(grantee)));
}

/** Of records with one id, the principal's own namespace, else the first in code point order. */
function preferred(entries: Entry[], principal: Principal): Entry | undefined {
  const own = entries.find(({ namespace }) => namespace === recordNamespace(principal));
  return own ?? entries.sort((a, b) => codePointOrder(a.namespace, b.namespace))[0];
}

/**
 * `created_at`, then `id`: the stores' order when a filter names no sort. Ties beyond those (one id
 * in two namespaces) the stores break by a random key; here, by namespace, to be deterministic.
 */
function byDefaultOrder(a: Entry, b: Entry): number {
  return codePointOrder(a.record.createdAt, b.record.createdAt) || codePointOrder(a.record.id, b.record.id) || codePointOrder(a.namespace, b.namespace);
}

/** UTF-8 bytes compare in code point order (JavaScript's `<` compares UTF-16 units). */
function codePointOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function isIn(record: StoredRecord, { model, version }: ModelVersion): boolean {
  return record.model === model && record.version === version;
}

/** Equality is JSON equality without coercion; a missing field equals nothing. */
function meets(record: StoredRecord, condition: Condition): boolean {
  const value = valueOf(record, condition.field);
  const equals = (expected: JsonValue) => value !== undefined && canonicalJson(value) === canonicalJson(expected);
  switch (condition.op) {
    case 'eq':
      return equals(condition.value);
    case 'ne':
      return !equals(condition.value);
    case 'in':
      return condition.values.some(equals);
    case 'exists':
      return (value !== undefined) === condition.value;
    default:
      throw new Error(`the in-memory record store does not evaluate ${condition.op}`);
  }
}

/** The field's value, undefined when its path does not resolve; timestamps as the parser writes its operands. */
function valueOf(record: StoredRecord, field: Field): JsonValue | undefined {
  switch (field.kind) {
    case 'text':
      return record[field.column];
    case 'timestamp':
      return field.column === 'created_at' ? record.createdAt : record.updatedAt;
    case 'payload':
      return field.path.reduce<JsonValue | undefined>((value, segment) => {
        if (typeof segment === 'number') return Array.isArray(value) ? value[segment] : undefined;
        return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
      }, record.payload);
  }
}
