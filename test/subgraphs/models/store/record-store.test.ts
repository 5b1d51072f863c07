import { randomUUID } from 'node:crypto';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { parseRecordFilter } from '../../../../kernel/records/record-filter.js';
import { idempotencyScope, requestFingerprint, storableRecord } from '../../../../subgraphs/models/domain/records/record-store.js';
import type { CreateRecordResult, Principal, RecordStore } from '../../../../subgraphs/models/domain/records/record-store.js';
import { backendsUnderTest, createDatabase, onDatabase, openStoreAt } from './support.js';
import type { TestDatabase } from './support.js';

const backends = await backendsUnderTest();

const alice: Principal = { subject: 'alice', tenant: 'acme' };
const bob: Principal = { subject: 'bob', tenant: 'acme' };

describe.each(backends)('records store on %s', (backend) => {
  let database: TestDatabase;
  let store: RecordStore;
  beforeAll(async () => {
    database = await createDatabase(backend);
    store = await openStoreAt(database.url);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  /** What the core's :create does: a new id unless the payload names one; the key scoped to the caller. */
  function create(caller: Principal, key: string, payload: JsonValue, id: string = randomUUID()): Promise<CreateRecordResult> {
    return store.createRecord({
      record: storableRecord({ id, model: 'passport', version: '1.0.0', payload }),
      owner: caller,
      idempotency: { scope: idempotencyScope(caller), key, fingerprint: requestFingerprint('passport', '1.0.0', storableRecord({ id, model: 'passport', version: '1.0.0', payload }).payloadJson) },
    });
  }

  async function countWith(marker: string): Promise<number> {
    const filter = parseRecordFilter({ where: [{ field: 'payload.marker', op: 'eq', value: marker }] });
    return (await store.queryRecords(filter, alice, null)).length;
  }

  test('reports its backend and answers ping', async () => {
    expect(store.dialect.name).toBe(backend);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  test('stores a record and reads it back with UTC millisecond timestamps', async () => {
    const before = Date.now();
    const { outcome, record } = await create(alice, randomUUID(), { name: 'battery', cells: [1, 2] }, 'stored-1');
    expect(outcome).toBe('created');
    expect(record).toMatchObject({ id: 'stored-1', model: 'passport', version: '1.0.0', payload: { name: 'battery', cells: [1, 2] } });
    expect(record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(record.updatedAt).toBe(record.createdAt);
    expect(Date.parse(record.createdAt)).toBeGreaterThanOrEqual(before);
    expect(await store.getRecord('stored-1', alice)).toEqual(record);
  });

  test('payloads of every JSON kind round-trip', async () => {
    // Bare doubles at the edges: SQLite keeps them as REAL, which must read back to the last digit.
    const payloads: JsonValue[] = [
      null,
      5,
      2.5,
      -1e300,
      0.1 + 0.2,
      -Number.MAX_VALUE,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      123456789.12345678,
      -0.5e-10,
      'text',
      '12',
      true,
      [],
      {},
      [1, 'a', null, 0.1 + 0.2],
      { __proto__: 1, é: 'ü', precise: 0.1 + 0.2, big: 12345678901234567000 /* past 2^53: the double it parses to */, nested: { deep: [{}] } },
    ];
    for (const payload of payloads) {
      const key = randomUUID();
      const { record } = await create(alice, key, payload);
      expect(record.payload).toEqual(payload);
      expect((await store.getRecord(record.id, alice))?.payload).toEqual(payload);
      const [queried] = await store.queryRecords(parseRecordFilter({ where: [{ field: 'id', op: 'eq', value: record.id }] }), alice, null);
      expect(queried?.payload).toEqual(payload);
      expect((await create(alice, key, payload)).record).toEqual(record);
    }
  });

  test('payload numbers at the edges of a double are indexed exactly: ranges on them answer as on the doubles', async () => {
    const edges = { min: -1.7976931348623155e308, max: Number.MAX_VALUE, tiny: 5e-324, wide: 1.2345678901234568e20, sum: 0.1 + 0.2 };
    const { record } = await create(alice, randomUUID(), edges);
    const found = async (field: string, op: string, value: number) =>
      (
        await store.queryRecords(
          parseRecordFilter({
            where: [
              { field: `payload.${field}`, op, value },
              { field: 'id', op: 'eq', value: record.id },
            ],
          }),
          alice,
          null,
        )
      ).length;
    for (const [field, value] of Object.entries(edges)) {
      expect({ field, gte: await found(field, 'gte', value), lte: await found(field, 'lte', value), gt: await found(field, 'gt', value), lt: await found(field, 'lt', value) }).toEqual({
        field,
        gte: 1,
        lte: 1,
        gt: 0,
        lt: 0,
      });
    }
    expect(await found('sum', 'gt', 0.3)).toBe(1);
    expect(await found('wide', 'lt', 1.234567890123457e20)).toBe(1);
  });

  test('the same key and request replays the original record, storing nothing new', async () => {
    const key = randomUUID();
    const marker = randomUUID();
    const first = await create(alice, key, { marker, a: 1, b: { c: 2, d: 3 } });
    // Key order does not change the request; a retry gets a new id from the domain, which is ignored.
    const retry = await create(alice, key, { b: { d: 3, c: 2 }, marker, a: 1 });
    expect(first.outcome).toBe('created');
    expect(retry).toEqual({ outcome: 'replayed', record: first.record });
    expect(await countWith(marker)).toBe(1);
  });

  test('the same key with another request is IDEMPOTENCY_CONFLICT', async () => {
    const key = randomUUID();
    await create(alice, key, { version: 1 });
    await expect(create(alice, key, { version: 2 })).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });

  test('keys are scoped to subject and tenant', async () => {
    const key = randomUUID();
    const mine = await create(alice, key, { owner: 'alice' });
    const other = await create(bob, key, { owner: 'bob' });
    const otherTenant = await create({ subject: 'alice', tenant: 'globex' }, key, { owner: 'alice at globex' });
    expect([mine.outcome, other.outcome, otherTenant.outcome]).toEqual(['created', 'created', 'created']);
  });

  test('an id stored under another key is RECORD_CONFLICT, and the failed request leaves its key free', async () => {
    const id = randomUUID();
    const key = randomUUID();
    await create(alice, randomUUID(), { first: true }, id);
    await expect(create(alice, key, { second: true }, id)).rejects.toMatchObject({ code: 'RECORD_CONFLICT' });
    await expect(create(bob, randomUUID(), { second: true }, id)).rejects.toMatchObject({ code: 'RECORD_CONFLICT' });
    expect((await create(alice, key, { second: true })).outcome).toBe('created');
  });

  describe('ids are unique within a tenant, not across tenants', () => {
    const globex: Principal = { subject: 'gina', tenant: 'globex' };
    const loner: Principal = { subject: 'lou', tenant: null };
    const byId = (id: string) => parseRecordFilter({ where: [{ field: 'id', op: 'eq', value: id }] });
    const payloads = async (id: string, viewer: Principal) => (await store.queryRecords(byId(id), viewer, null)).map((r) => r.payload);

    test("another tenant's id is stored as a record of the caller's own, both intact", async () => {
      const id = randomUUID();
      await create(globex, randomUUID(), { whose: 'globex' }, id);
      expect((await create(alice, randomUUID(), { whose: 'acme' }, id)).outcome).toBe('created');
      expect((await create(loner, randomUUID(), { whose: 'nobody' }, id)).outcome).toBe('created');
      expect((await store.getRecord(id, alice))?.payload).toEqual({ whose: 'acme' });
      expect((await store.getRecord(id, globex))?.payload).toEqual({ whose: 'globex' });
      expect((await store.getRecord(id, loner))?.payload).toEqual({ whose: 'nobody' });
      expect(await payloads(id, alice)).toEqual([{ whose: 'acme' }]);
      // Within the tenant the id is taken, whoever of the tenant holds it.
      await expect(create(bob, randomUUID(), { whose: 'bob' }, id)).rejects.toMatchObject({ code: 'RECORD_CONFLICT' });
    });

    test('a grant shares the granted record; by id a caller gets their own first, a query lists both', async () => {
      const id = randomUUID();
      await create(globex, randomUUID(), { whose: 'globex' }, id);
      await store.grantRead(id, { kind: 'tenant', id: 'acme' }, globex);
      expect((await store.getRecord(id, bob))?.payload).toEqual({ whose: 'globex' });
      await create(alice, randomUUID(), { whose: 'acme' }, id);
      expect((await store.getRecord(id, alice))?.payload).toEqual({ whose: 'acme' });
      expect((await store.getRecord(id, bob))?.payload).toEqual({ whose: 'globex' }); // acme's is alice's alone
      expect(await payloads(id, alice)).toEqual([{ whose: 'globex' }, { whose: 'acme' }]);
      // alice's grant and revoke act on her own record, never on globex's.
      await store.grantRead(id, { kind: 'subject', id: 'bob' }, alice);
      expect(await payloads(id, bob)).toEqual([{ whose: 'globex' }, { whose: 'acme' }]);
      await store.revokeRead(id, { kind: 'tenant', id: 'acme' }, alice);
      expect(await payloads(id, bob)).toEqual([{ whose: 'globex' }, { whose: 'acme' }]);
      await store.revokeRead(id, { kind: 'tenant', id: 'acme' }, globex);
      expect(await payloads(id, bob)).toEqual([{ whose: 'acme' }]);
    });

    test('a batch of ids (federation entity lookups) answers each as getRecord does: in their order, repeated, missing, own first, then code point order', async () => {
      const shared = randomUUID();
      const granted = randomUUID();
      await create(globex, randomUUID(), { whose: 'globex' }, shared);
      await create(alice, randomUUID(), { whose: 'acme' }, shared);
      await create(globex, randomUUID(), { whose: 'globex only' }, granted);
      for (const owner of [globex, alice]) await store.grantRead(shared, { kind: 'subject', id: 'lou' }, owner);
      await store.grantRead(granted, { kind: 'subject', id: 'alice' }, globex);
      const ids = [granted, 'missing', shared, granted, '', shared];
      const batch = await store.getRecords(ids, alice);
      expect(batch.map((record) => record?.payload ?? null)).toEqual([{ whose: 'globex only' }, null, { whose: 'acme' }, { whose: 'globex only' }, null, { whose: 'acme' }]);
      expect(batch).toEqual(await Promise.all(ids.map((id) => store.getRecord(id, alice))));
      // Neither namespace is lou's: "acme" comes before "globex".
      expect((await store.getRecords([shared], loner)).map((record) => record?.payload)).toEqual([{ whose: 'acme' }]);
      expect(await store.getRecords([], alice)).toEqual([]);
    });

    test('keys replay within their own namespace', async () => {
      const id = randomUUID();
      const key = randomUUID();
      await create(globex, randomUUID(), { whose: 'globex' }, id);
      const first = await create(alice, key, { whose: 'acme' }, id);
      const again = await create(alice, key, { whose: 'acme' }, id);
      expect(again).toEqual({ outcome: 'replayed', record: first.record });
    });
  });

  test('an expired key is forgotten', async () => {
    const forgetful = await openStoreAt(database.url, { idempotencyTtlSecs: 0 });
    try {
      const key = randomUUID();
      const scope = idempotencyScope(alice);
      const request = (payload: JsonValue) =>
        forgetful.createRecord({
          record: storableRecord({ id: randomUUID(), model: 'm', version: '1', payload }),
          owner: alice,
          idempotency: { scope, key, fingerprint: requestFingerprint('m', '1', storableRecord({ id: randomUUID(), model: 'm', version: '1', payload }).payloadJson) },
        });
      const first = await request({ n: 1 });
      const again = await request({ n: 2 });
      expect(again.outcome).toBe('created');
      expect(again.record.id).not.toBe(first.record.id);
    } finally {
      await forgetful.close();
    }
  });

  test('concurrent identical requests store exactly one record and all answer it', async () => {
    const key = randomUUID();
    const marker = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => create(alice, key, { marker })));
    expect(results.filter((result) => result.outcome === 'created')).toHaveLength(1);
    expect(new Set(results.map((result) => result.record.id)).size).toBe(1);
    expect(await countWith(marker)).toBe(1);
  });

  test('concurrent identical requests naming the id store it once', async () => {
    const key = randomUUID();
    const id = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, () => create(alice, key, { marker: id }, id)));
    expect(results.filter((result) => result.outcome === 'created')).toHaveLength(1);
    expect(results.every((result) => result.record.id === id)).toBe(true);
  });

  test('concurrent requests reusing one key for different payloads: one stored, the others conflict', async () => {
    const key = randomUUID();
    const settled = await Promise.allSettled(Array.from({ length: 10 }, (_, n) => create(alice, key, { n })));
    const stored = settled.filter((result) => result.status === 'fulfilled');
    const refused = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(stored).toHaveLength(1);
    expect(refused).toHaveLength(9);
    expect(refused.every((error) => error.code === 'IDEMPOTENCY_CONFLICT')).toBe(true);
  });

  describe('read visibility', () => {
    let id: string;
    beforeAll(async () => {
      id = (await create(alice, randomUUID(), { visibility: true })).record.id;
    });

    test('the owner reads it within the tenant, or with no tenant', async () => {
      expect(await store.getRecord(id, alice)).not.toBeNull();
      expect(await store.getRecord(id, { subject: 'alice', tenant: null })).not.toBeNull();
      expect(await store.getRecord(id, { subject: 'alice', tenant: 'globex' })).toBeNull();
    });

    test('another subject of the same tenant does not, nor does anyone for an unknown id', async () => {
      expect(await store.getRecord(id, bob)).toBeNull();
      expect(await store.getRecord('no-such-record', alice)).toBeNull();
    });

    test('a grant to a subject or to a tenant lets them read it until revoked', async () => {
      await store.grantRead(id, { kind: 'subject', id: 'bob' }, alice);
      await store.grantRead(id, { kind: 'subject', id: 'bob' }, alice); // granting twice is harmless
      expect(await store.getRecord(id, bob)).not.toBeNull();
      expect(await store.getRecord(id, { subject: 'bob', tenant: 'globex' })).not.toBeNull();

      const carol: Principal = { subject: 'carol', tenant: 'acme' };
      expect(await store.getRecord(id, carol)).toBeNull();
      await store.grantRead(id, { kind: 'tenant', id: 'acme' }, alice);
      expect(await store.getRecord(id, carol)).not.toBeNull();
      expect(await store.getRecord(id, { subject: 'carol', tenant: null })).toBeNull();

      const visibleTo = async (viewer: Principal) => (await store.queryRecords(parseRecordFilter({ where: [{ field: 'id', op: 'eq', value: id }] }), viewer, null)).length;
      expect([await visibleTo(bob), await visibleTo(carol)]).toEqual([1, 1]);

      await store.revokeRead(id, { kind: 'subject', id: 'bob' }, alice);
      await store.revokeRead(id, { kind: 'tenant', id: 'acme' }, alice);
      expect(await store.getRecord(id, bob)).toBeNull();
      expect(await store.getRecord(id, carol)).toBeNull();
      expect([await visibleTo(bob), await visibleTo(carol)]).toEqual([0, 0]);
    });

    test('only the owner grants or revokes; to anyone else the record does not exist', async () => {
      await expect(store.grantRead(id, { kind: 'subject', id: 'bob' }, bob)).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' });
      await expect(store.revokeRead(id, { kind: 'subject', id: 'bob' }, bob)).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' });
      await expect(store.grantRead('no-such-record', { kind: 'subject', id: 'bob' }, alice)).rejects.toMatchObject({
        code: 'RECORD_NOT_FOUND',
      });
    });
  });

  test('timestamps are stored as the backend keeps instants', async () => {
    const { record } = await create(alice, randomUUID(), {}, 'timestamp-check');
    const [row] = await onDatabase(backend, database.url, `SELECT created_at FROM records WHERE id = 'timestamp-check'`);
    const stored = row!.created_at;
    expect(backend === 'sqlite' ? Number(stored) : (stored as Date).getTime()).toBe(Date.parse(record.createdAt));
  });
});
