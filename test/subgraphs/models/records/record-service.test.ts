import { ModelRegistry } from '../../../../subgraphs/models/domain/registry/model-registry.js';
import { type JsonObject, RecordService } from '../../../../subgraphs/models/domain/records/record-service.js';
import { prepareArtifacts } from '../../../../subgraphs/models/domain/validation/prepare-artifacts.js';
import type { Principal, RecordQuery, StoredRecord } from '../../../../subgraphs/models/domain/records/record-store.js';
import type { PageRequest } from '../../../../subgraphs/models/domain/records/record-page.js';
import { type RecordField, typedRecordFilter } from '../../../../subgraphs/models/domain/records/record-query.js';
import { parseRecordFilter } from '../../../../kernel/records/record-filter.js';
import { InMemoryRecordStore } from '../../../support/in-memory-record-store.js';
import { VALID_WIDGET, miniArtifact } from '../../../support/mini-model.js';

/**
 * RecordService's own rules (DECISIONS sections 3 and 4) over the in-memory store and a registry
 * read from memory: no database, HTTP or GraphQL. What the stores do themselves (SQL, concurrency,
 * expiry) is test/store's; here, what the service decides before and around them.
 */
const alice: Principal = { subject: 'alice', tenant: 'acme' };
const bob: Principal = { subject: 'bob', tenant: 'acme' };
const carol: Principal = { subject: 'carol', tenant: 'globex' };
/** Validated Widgets (test/fixtures/mini-model). */
const MINI = { model: 'mini', version: '1.0' };
/** No artifacts: every payload passes. */
const BARE = { model: 'bare', version: '0.1' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The registry of `mini` 1.0 and `bare` 0.1, its catalog and artifacts served from memory. */
async function registryOfTestModels(): Promise<ModelRegistry> {
  const base = 'memory:/mini/1.0/';
  const files = new Map((['schema.json', 'shacl.ttl', 'owl.ttl'] as const).map((file) => [`${base}${file}`, Buffer.from(miniArtifact(file))]));
  const registry = new ModelRegistry({
    catalog: {
      load: async () => [
        { model: 'mini', version: '1.0', base_url: base, root_class: 'Widget' },
        { model: 'bare', version: '0.1' },
      ],
    },
    artifacts: { fetch: async (url) => (files.has(url) ? { found: true, body: files.get(url)! } : { found: false }) },
    // In this thread: the server's preparer is a worker thread (adapters/artifact-preparer.ts).
    preparer: { prepare: async (texts, rootClass) => prepareArtifacts(texts, rootClass) },
  });
  expect((await registry.load()).errors).toEqual([]);
  return registry;
}

let registry: ModelRegistry;
let store: InMemoryRecordStore;
let service: RecordService;
let replays: number;

beforeAll(async () => {
  registry = await registryOfTestModels();
});

beforeEach(() => {
  store = new InMemoryRecordStore();
  replays = 0;
  service = new RecordService(registry, store, { replayed: () => void replays++ });
});

const ids = (records: StoredRecord[]) => records.map(({ id }) => id).sort();

/** Every record the caller may read, in every model version. */
const EVERY: RecordQuery = { where: [], sort: [], within: null };

/** The records of one page of a query (the first 100 unless `request` says otherwise). */
async function list(caller: Principal, query: RecordQuery = EVERY, request: PageRequest = {}): Promise<StoredRecord[]> {
  return (await service.page(caller, query, request)).records;
}

describe('create (the core :create)', () => {
  test.each([undefined, '', '   '])('Idempotency-Key %j is MISSING_IDEMPOTENCY_KEY, before any validation', async (key) => {
    await expect(service.create(alice, MINI, { id: 'w-1' }, key)).rejects.toMatchObject({ code: 'MISSING_IDEMPOTENCY_KEY' });
    expect(await list(alice)).toEqual([]);
  });

  test('a payload the validators refuse is VALIDATION_FAILED with their report, and spends no key', async () => {
    const failure = service.create(alice, MINI, { id: 'w-1', weight: -1 }, 'k');
    await expect(failure).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { passed: false } });
    expect(await list(alice)).toEqual([]);
    expect(await service.create(alice, MINI, VALID_WIDGET, 'k')).toMatchObject({ replayed: false, record: { id: 'w-1' } });
  });

  test('a model version outside the registry is MODEL_NOT_FOUND', async () => {
    await expect(service.create(alice, { model: 'mini', version: '9.9' }, VALID_WIDGET, 'k')).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
  });

  test('the record is the payload under its model version, owned by the caller, its id payload.id', async () => {
    const { record, replayed } = await service.create(alice, MINI, VALID_WIDGET, 'k');
    expect(replayed).toBe(false);
    expect(record).toMatchObject({ id: 'w-1', ...MINI, payload: VALID_WIDGET, owner: alice });
    expect(await service.get(alice, 'w-1')).toEqual(record);
  });

  test.each<[string, JsonObject]>([
    ['no id', {}],
    ['an empty id', { id: '' }],
    ['an id that is not a string', { id: 7 }],
  ])('a payload with %s gets a new UUID', async (_, payload) => {
    const first = await service.create(alice, BARE, payload, 'k1');
    const second = await service.create(alice, BARE, payload, 'k2');
    expect(first.record.id).toMatch(UUID);
    expect(second.record.id).toMatch(UUID);
    expect(second.record.id).not.toBe(first.record.id);
  });

  test('the same key and request replay the original record, whatever the key order, and the observer hears of it', async () => {
    const created = await service.create(alice, MINI, { id: 'w-1', name: 'one', weight: 1 }, 'k');
    expect(replays).toBe(0);
    const again = await service.create(alice, MINI, { weight: 1, name: 'one', id: 'w-1' }, 'k');
    expect(again).toEqual({ replayed: true, record: created.record });
    expect(replays).toBe(1);
  });

  test('the same key with another payload is IDEMPOTENCY_CONFLICT', async () => {
    await service.create(alice, MINI, VALID_WIDGET, 'k');
    await expect(service.create(alice, MINI, { ...VALID_WIDGET, weight: 3 }, 'k')).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect(replays).toBe(0);
  });

  test('the same key and payload for another model version is IDEMPOTENCY_CONFLICT', async () => {
    await service.create(alice, MINI, VALID_WIDGET, 'k');
    await expect(service.create(alice, BARE, VALID_WIDGET, 'k')).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });

  test("a key is the caller's own: another caller's identical request is no replay of it", async () => {
    await service.create(alice, MINI, VALID_WIDGET, 'k');
    // bob shares alice's tenant, where the id is taken; carol's tenant holds ids of its own.
    await expect(service.create(bob, MINI, VALID_WIDGET, 'k')).rejects.toMatchObject({ code: 'RECORD_CONFLICT' });
    expect(await service.create(carol, MINI, VALID_WIDGET, 'k')).toMatchObject({ replayed: false, record: { id: 'w-1', owner: carol } });
    expect(replays).toBe(0);
  });
});

describe('storeRecord (the records backend)', () => {
  const stored = { id: 'r-1', model: 'nowhere', version: '9', payload: { a: 1 } };

  test.each([undefined, '', ' '])('Idempotency-Key %j is MISSING_IDEMPOTENCY_KEY', async (key) => {
    await expect(service.storeRecord(alice, stored, key)).rejects.toMatchObject({ code: 'MISSING_IDEMPOTENCY_KEY' });
  });

  test('an empty id is BAD_REQUEST naming the field', async () => {
    await expect(service.storeRecord(alice, { ...stored, id: '' }, 'k')).rejects.toMatchObject({ code: 'BAD_REQUEST', details: { field: 'id' } });
  });

  test.each([42, 'text', null, [1, 'a'], { a: { b: [true] } }])('any JSON payload (%j), under a model no registry knows', async (payload) => {
    const { record } = await service.storeRecord(alice, { ...stored, payload }, 'k');
    expect(record).toMatchObject({ ...stored, payload, owner: alice });
  });

  test('the id is part of the request: the same key replays the same id, another id is IDEMPOTENCY_CONFLICT', async () => {
    const created = await service.storeRecord(alice, stored, 'k');
    expect(await service.storeRecord(alice, stored, 'k')).toEqual({ replayed: true, record: created.record });
    await expect(service.storeRecord(alice, { ...stored, id: 'r-2' }, 'k')).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect(replays).toBe(1);
  });

  test('a core create and a stored record with the same key never pass for each other', async () => {
    await service.create(alice, BARE, { id: 'x' }, 'k');
    await expect(service.storeRecord(alice, { id: 'x', ...BARE, payload: { id: 'x' } }, 'k')).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });
});

describe('get and find', () => {
  test('a record nobody let the caller read is RECORD_NOT_FOUND, as a missing one is', async () => {
    await service.create(alice, MINI, VALID_WIDGET, 'k');
    for (const [caller, id] of [
      [bob, 'w-1'],
      [carol, 'w-1'],
      [alice, 'missing'],
    ] as const) {
      await expect(service.get(caller, id)).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND', details: { id } });
      expect(await service.find(caller, id)).toBeNull();
    }
  });
});

describe('page and count', () => {
  beforeEach(async () => {
    await service.create(alice, MINI, VALID_WIDGET, 'k1');
    await service.create(alice, BARE, { id: 'b-1', name: 'bare one' }, 'k2');
  });

  test.each<[string, () => unknown, string]>([
    ['a filter that is not an object (REST form)', () => parseRecordFilter('everything'), 'filter'],
    ['an unknown operator', () => typedRecordFilter([{ field: 'payload', path: 'name', operator: 'like', value: { string: 'x' } }], []), 'filter.conditions[0].operator'],
    ['an unknown field', () => typedRecordFilter([], [{ field: 'owner' as RecordField, direction: 'asc' }]), 'orderBy[0].field'],
    ['a payload path the filter language refuses', () => typedRecordFilter([{ field: 'payload', path: 'na me', operator: 'eq', value: { string: 'x' } }], []), 'filter.conditions[0].path'],
    ['an operand of the wrong type', () => typedRecordFilter([{ field: 'created_at', operator: 'gt', value: { number: 1 } }], []), 'filter.conditions[0].value'],
    ['a value with two members set', () => typedRecordFilter([{ field: 'id', operator: 'eq', value: { string: 'x', number: 1 } }], []), 'filter.conditions[0].value'],
    // The argument the client wrote, not the page it makes (issue 37).
    ['a page larger than 1,000 (first)', () => service.page(alice, EVERY, { first: 1001 }), 'first'],
    ['a page larger than 1,000 (last)', () => service.page(alice, EVERY, { last: 1001, before: null }), 'last'],
    ['a negative last', () => service.page(alice, EVERY, { last: -1 }), 'last'],
    ['first and last together', () => service.page(alice, EVERY, { first: 1, last: 1 }), 'last'],
  ])('BAD_REQUEST names the bad part: %s', async (_, attempt, at) => {
    await expect((async () => attempt())()).rejects.toMatchObject({ code: 'BAD_REQUEST', details: { at, reason: expect.any(String) } });
  });

  test('within a model version, only its records are searched; without, every record the caller may read', async () => {
    expect(ids(await list(alice, { ...EVERY, within: MINI }))).toEqual(['w-1']);
    expect(ids(await list(alice, { ...EVERY, within: BARE }))).toEqual(['b-1']);
    // The registry is the graph's to consult (modelVersion answers null): here, just no records.
    expect(await list(alice, { ...EVERY, within: { model: 'mini', version: '9.9' } })).toEqual([]);
    expect(ids(await list(alice))).toEqual(['b-1', 'w-1']);
    expect(await list(bob)).toEqual([]);
    expect(await service.count(alice, EVERY)).toBe(2);
    expect(await service.count(alice, { ...EVERY, within: MINI })).toBe(1);
    expect(await service.count(bob, EVERY)).toBe(0);
  });

  test('the parsed filter selects the records', async () => {
    const typed = { ...typedRecordFilter([{ field: 'payload', path: 'name', operator: 'in', values: [{ string: 'bare one' }, { string: 'other' }] }], []), within: null };
    expect(ids(await list(alice, typed))).toEqual(['b-1']);
    expect(await service.count(alice, typed)).toBe(1);
    const json = parseRecordFilter({ where: [{ field: 'payload.name', op: 'in', value: ['bare one', 'other'] }] });
    expect(ids(await list(alice, { where: json.where, sort: json.sort, within: null }))).toEqual(['b-1']);
    expect(await list(alice, EVERY, { first: 0 })).toEqual([]);
  });

  test('pages walk the records in order, forwards by endCursor and backwards by startCursor', async () => {
    await service.create(alice, BARE, { id: 'b-2' }, 'k3');
    const all = (await list(alice)).map(({ id }) => id);
    expect(all).toHaveLength(3);
    const forwards: string[] = [];
    let after: string | null = null;
    for (let hasNextPage = true; hasNextPage;) {
      const page = await service.page(alice, EVERY, { first: 1, after });
      expect(page.records).toHaveLength(1);
      expect(page.hasPreviousPage).toBe(forwards.length > 0);
      forwards.push(page.records[0]!.id);
      ({ hasNextPage } = page);
      after = page.cursors.at(-1)!;
    }
    expect(forwards).toEqual(all);
    const last = await service.page(alice, EVERY, { last: 2 });
    expect({ ids: last.records.map(({ id }) => id), hasPreviousPage: last.hasPreviousPage }).toEqual({ ids: all.slice(1), hasPreviousPage: true });
    const before = await service.page(alice, EVERY, { last: 2, before: last.cursors[0] });
    expect({ ids: before.records.map(({ id }) => id), hasPreviousPage: before.hasPreviousPage }).toEqual({ ids: all.slice(0, 1), hasPreviousPage: false });
    expect(await service.count(alice, EVERY)).toBe(3);
  });
});

describe('grants', () => {
  beforeEach(async () => {
    await service.create(alice, MINI, VALID_WIDGET, 'k');
  });

  test('a grant to a subject lets it read the record; a revoke takes that back', async () => {
    await service.grantRead(alice, 'w-1', { subject: 'carol', tenant: null });
    expect((await service.get(carol, 'w-1')).id).toBe('w-1');
    await service.revokeRead(alice, 'w-1', { subject: 'carol' });
    await expect(service.get(carol, 'w-1')).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' });
  });

  test("a grant to a tenant lets the tenant's members read the record", async () => {
    await service.grantRead(alice, 'w-1', { tenant: 'globex' });
    expect(ids(await list(carol))).toEqual(['w-1']);
  });

  test('only the owner grants and revokes: to anyone else the record is RECORD_NOT_FOUND', async () => {
    await expect(service.grantRead(bob, 'w-1', { subject: 'bob' })).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' });
    await service.grantRead(alice, 'w-1', { subject: 'bob' });
    await expect(service.revokeRead(bob, 'w-1', { subject: 'bob' })).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' });
  });

  test.each([{}, { subject: null, tenant: null }, { subject: 'bob', tenant: 'acme' }, { subject: '' }, { tenant: '' }])(
    'grantee %j is BAD_REQUEST: exactly one non-empty subject or tenant, checked before the record',
    async (grantee) => {
      await expect(service.grantRead(alice, 'missing', grantee)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(service.revokeRead(alice, 'missing', grantee)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    },
  );
});

describe('ownerShownTo', () => {
  const record = { id: 'w-1', ...MINI, payload: {}, createdAt: '', updatedAt: '', owner: alice };

  test.each<[string, Principal, Principal | null]>([
    ['the owner sees the owner', alice, alice],
    ['the owning subject without a tenant sees the owner', { subject: 'alice', tenant: null }, alice],
    ['the owning subject in another tenant sees no owner', { subject: 'alice', tenant: 'globex' }, null],
    ['a reader through a grant sees no owner', bob, null],
  ])('%s', (_, caller, shown) => {
    expect(service.ownerShownTo(caller, record)).toEqual(shown);
  });
});

describe('readiness', () => {
  test('ready while the store answers, not ready with a reason once it does not', async () => {
    expect(await service.readiness()).toEqual({ ready: true, reasons: [] });
    await store.close();
    expect(await service.readiness()).toEqual({ ready: false, reasons: ['the records store does not answer'] });
  });
});
