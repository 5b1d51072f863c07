import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { parseRecordFilter } from '../../../../kernel/records/record-filter.js';
import { idempotencyScope, requestFingerprint, storableRecord } from '../../../../subgraphs/models/domain/records/record-store.js';
import type { ModelVersion, Principal, RecordStore, StoredRecord } from '../../../../subgraphs/models/domain/records/record-store.js';
import { backendsUnderTest, createDatabase, onDatabase, openStoreAt } from './support.js';
import type { TestDatabase } from './support.js';

const backends = await backendsUnderTest();

const owner: Principal = { subject: 'alice', tenant: 'acme' };
const passport: ModelVersion = { model: 'passport', version: '1.0.0' };

/** Created in this order, a few milliseconds apart, all visible to `owner` within `passport`. */
const fixtures: Record<string, JsonValue> = {
  r1: { n: 1, s: 'apple', b: true, tags: ['red', 'green'], nested: { x: 1, y: [1, { z: 'deep' }] }, nul: null, mixed: 1 },
  r2: { n: 2.5, s: 'banana', b: false, tags: ['yellow'], nested: { x: 2 }, mixed: '1' },
  r3: { n: 10, s: 'Cherry', tags: [], nested: { x: 1.0, obj: { b: 2, a: 1 } }, mixed: true },
  r4: { n: -3, s: 'apricot', tags: ['red', { k: 1 }], list: [3, 1, 2], mixed: [1] },
  r5: { n: '7', s: 'éclair', nested: null, mixed: { a: 1 } },
};
const all = Object.keys(fixtures);

type Where = { field: string; op: string; value: unknown };

/** [condition, ids it matches], the same on every backend. */
const matches: [Where, string[]][] = [
  // eq: JSON equality, no coercion, numbers numerically, objects whatever their key order
  [{ field: 'payload.n', op: 'eq', value: 1 }, ['r1']],
  [{ field: 'payload.n', op: 'eq', value: 1.0 }, ['r1']],
  [{ field: 'payload.n', op: 'eq', value: '1' }, []],
  [{ field: 'payload.n', op: 'eq', value: '7' }, ['r5']],
  [{ field: 'payload.nested.x', op: 'eq', value: 1 }, ['r1', 'r3']],
  [{ field: 'payload.mixed', op: 'eq', value: 1 }, ['r1']],
  [{ field: 'payload.mixed', op: 'eq', value: '1' }, ['r2']],
  [{ field: 'payload.mixed', op: 'eq', value: true }, ['r3']],
  [{ field: 'payload.b', op: 'eq', value: false }, ['r2']],
  [{ field: 'payload.mixed', op: 'eq', value: [1] }, ['r4']],
  [{ field: 'payload.mixed', op: 'eq', value: { a: 1 } }, ['r5']],
  [{ field: 'payload.nested.obj', op: 'eq', value: { a: 1, b: 2 } }, ['r3']],
  [{ field: 'payload.nested.obj', op: 'eq', value: { a: 1 } }, []],
  [{ field: 'payload.tags', op: 'eq', value: ['red', 'green'] }, ['r1']],
  [{ field: 'payload.tags', op: 'eq', value: ['green', 'red'] }, []],
  [{ field: 'payload.nul', op: 'eq', value: null }, ['r1']],
  [{ field: 'payload.nested', op: 'eq', value: null }, ['r5']],
  [{ field: 'payload.nested.y[1].z', op: 'eq', value: 'deep' }, ['r1']],
  [{ field: 'payload.tags[1]', op: 'eq', value: 'green' }, ['r1']],
  [{ field: 'payload.list[0]', op: 'eq', value: 3 }, ['r4']],
  [{ field: 'payload.tags.0', op: 'eq', value: 'red' }, []],
  [{ field: 'payload.nested[0]', op: 'eq', value: 1 }, []],
  [{ field: 'payload.tags', op: 'eq', value: 'red' }, []],
  [{ field: 'payload.nested.y', op: 'eq', value: 1 }, []],
  // an index on a scalar resolves nothing (PostgreSQL's `'1'::jsonb -> 0` is 1)
  [{ field: 'payload.n[0]', op: 'eq', value: 1 }, []],
  [{ field: 'payload.s[0]', op: 'eq', value: 'apple' }, []],
  [{ field: 'payload.n[0]', op: 'exists', value: true }, []],
  [{ field: 'payload.s[0]', op: 'in', value: ['apple', 'banana'] }, []],
  [{ field: 'payload.s[0]', op: 'contains', value: 'a' }, []],
  [{ field: 'payload.s[0]', op: 'gte', value: 'a' }, []],
  // ne: not eq, so also every record without the field
  [{ field: 'payload.n', op: 'ne', value: 1 }, ['r2', 'r3', 'r4', 'r5']],
  [{ field: 'payload.b', op: 'ne', value: true }, ['r2', 'r3', 'r4', 'r5']],
  [{ field: 'payload.nested.obj', op: 'ne', value: { b: 2, a: 1 } }, ['r1', 'r2', 'r4', 'r5']],
  // in: scalars, each compared as eq
  [{ field: 'payload.n', op: 'in', value: [1, 10, '7'] }, ['r1', 'r3', 'r5']],
  [{ field: 'payload.mixed', op: 'in', value: [true, null] }, ['r3']],
  [{ field: 'payload.nul', op: 'in', value: [null] }, ['r1']],
  [{ field: 'payload.s', op: 'in', value: ['apple', 'kiwi'] }, ['r1']],
  [{ field: 'payload.tags', op: 'in', value: ['red', 'yellow'] }, []],
  [{ field: 'payload.nested.x', op: 'in', value: [2, '1'] }, ['r2']],
  // contains: substring of a string, or an element of an array
  [{ field: 'payload.s', op: 'contains', value: 'an' }, ['r2']],
  [{ field: 'payload.s', op: 'contains', value: 'ap' }, ['r1', 'r4']],
  [{ field: 'payload.s', op: 'contains', value: 'c' }, ['r4', 'r5']],
  [{ field: 'payload.s', op: 'contains', value: '' }, all],
  [{ field: 'payload.tags', op: 'contains', value: 'red' }, ['r1', 'r4']],
  [{ field: 'payload.tags', op: 'contains', value: 're' }, []],
  [{ field: 'payload.tags', op: 'contains', value: { k: 1 } }, ['r4']],
  [{ field: 'payload.list', op: 'contains', value: 1 }, ['r4']],
  [{ field: 'payload.n', op: 'contains', value: 1 }, []],
  [{ field: 'payload.nested', op: 'contains', value: 1 }, []],
  // exists: present, a present null included
  [{ field: 'payload.nul', op: 'exists', value: true }, ['r1']],
  [{ field: 'payload.nested', op: 'exists', value: false }, ['r4']],
  [{ field: 'payload.b', op: 'exists', value: false }, ['r3', 'r4', 'r5']],
  [{ field: 'payload.nested.y[1]', op: 'exists', value: true }, ['r1']],
  [{ field: 'payload.nested.y[2]', op: 'exists', value: true }, []],
  // ranges: number with number, string with string (code point order), anything else no match
  [{ field: 'payload.n', op: 'gt', value: 2 }, ['r2', 'r3']],
  [{ field: 'payload.n', op: 'gte', value: 2.5 }, ['r2', 'r3']],
  [{ field: 'payload.n', op: 'lt', value: 0 }, ['r4']],
  [{ field: 'payload.n', op: 'lte', value: 1 }, ['r1', 'r4']],
  [{ field: 'payload.n', op: 'gt', value: '5' }, ['r5']],
  [{ field: 'payload.s', op: 'gt', value: 'b' }, ['r2', 'r5']],
  [{ field: 'payload.s', op: 'lte', value: 'apple' }, ['r1', 'r3']],
  [{ field: 'payload.missing', op: 'lt', value: 100 }, []],
  [{ field: 'payload.list[1]', op: 'gt', value: 0 }, ['r4']],
  [{ field: 'payload.nested.y[0]', op: 'lte', value: 1 }, ['r1']],
  [{ field: 'payload.nested.x', op: 'gte', value: 1 }, ['r1', 'r2', 'r3']],
  [{ field: 'payload.tags', op: 'gt', value: 0 }, []],
  // storage fields
  [{ field: 'id', op: 'eq', value: 'r2' }, ['r2']],
  [{ field: 'id', op: 'eq', value: 2 }, []],
  [{ field: 'id', op: 'ne', value: 2 }, all],
  [{ field: 'id', op: 'in', value: ['r1', 'r4', 5] }, ['r1', 'r4']],
  [{ field: 'id', op: 'contains', value: '3' }, ['r3']],
  [{ field: 'id', op: 'gte', value: 'r4' }, ['r4', 'r5']],
  [{ field: 'id', op: 'gt', value: 1 }, []],
  [{ field: 'model', op: 'eq', value: 'passport' }, all],
  [{ field: 'version', op: 'exists', value: true }, all],
  [{ field: 'updated_at', op: 'exists', value: false }, []],
];

describe.each(backends)('query on %s', (backend) => {
  let database: TestDatabase;
  let store: RecordStore;
  const created: Record<string, StoredRecord> = {};

  beforeAll(async () => {
    database = await createDatabase(backend);
    store = await openStoreAt(database.url);
    for (const [id, payload] of Object.entries(fixtures)) {
      created[id] = await put(store, owner, passport, id, payload);
      await sleep(3); // distinct created_at
    }
    await put(store, owner, { model: 'passport', version: '2.0.0' }, 'other-version', { n: 1 });
    await put(store, { subject: 'mallory', tenant: 'acme' }, passport, 'not-visible', { n: 1 });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  const ids = async (filter: unknown, within: ModelVersion | null = passport) => (await store.queryRecords(parseRecordFilter(filter), owner, within)).map((record) => record.id);

  test.each(matches)('%j matches %j', async (condition, expected) => {
    expect(await ids({ where: [condition] })).toEqual(expected);
  });

  test('conditions combine with AND', async () => {
    const where = [
      { field: 'payload.tags', op: 'contains', value: 'red' },
      { field: 'payload.n', op: 'gt', value: 0 },
    ];
    expect(await ids({ where })).toEqual(['r1']);
  });

  test('timestamps compare as instants, whatever the offset written', async () => {
    const { createdAt } = created.r3!;
    const elsewhere = new Date(Date.parse(createdAt) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await ids({ where: [{ field: 'created_at', op: 'gte', value: createdAt }] })).toEqual(['r3', 'r4', 'r5']);
    expect(await ids({ where: [{ field: 'created_at', op: 'lt', value: created.r2!.createdAt }] })).toEqual(['r1']);
    expect(await ids({ where: [{ field: 'created_at', op: 'eq', value: elsewhere }] })).toEqual(['r3']);
    expect(await ids({ where: [{ field: 'updated_at', op: 'in', value: [created.r1!.updatedAt, elsewhere] }] })).toEqual(['r1', 'r3']);
    expect(await ids({ where: [{ field: 'created_at', op: 'ne', value: createdAt }] })).toEqual(['r1', 'r2', 'r4', 'r5']);
    expect(await ids({ where: [{ field: 'created_at', op: 'gt', value: '2000-01-01' }] })).toEqual(all);
  });

  test('the records are exactly {id, model, version, payload} plus timestamps and owner, payload as stored', async () => {
    const [record] = await store.queryRecords(parseRecordFilter({ where: [{ field: 'id', op: 'eq', value: 'r1' }] }), owner, passport);
    expect(record).toEqual(created.r1);
    expect(Object.keys(record!).sort()).toEqual(['createdAt', 'id', 'model', 'owner', 'payload', 'updatedAt', 'version']);
    expect(record!.owner).toEqual(owner);
  });

  test('only the given model version is searched, unless none is given', async () => {
    expect(await ids({ where: [{ field: 'payload.n', op: 'eq', value: 1 }] }, null)).toEqual(['r1', 'other-version']);
    expect(await ids({ where: [{ field: 'model', op: 'eq', value: 'passport' }] }, { model: 'passport', version: '2.0.0' })).toEqual(['other-version']);
  });

  test('records the caller may not read never appear', async () => {
    expect(await ids({}, null)).not.toContain('not-visible');
    expect(await store.queryRecords(parseRecordFilter({}), { subject: 'mallory', tenant: 'acme' }, null)).toHaveLength(1);
  });

  test('the default order is created_at, then id', async () => {
    expect(await ids({})).toEqual(all);
    expect(await ids(undefined)).toEqual(all);
  });

  test.each<[string, unknown[], string[]]>([
    ['numbers numerically, then strings', [{ field: 'payload.n', direction: 'asc' }], ['r4', 'r1', 'r2', 'r3', 'r5']],
    ['descending reverses types and values', [{ field: 'payload.n', direction: 'desc' }], ['r5', 'r3', 'r2', 'r1', 'r4']],
    ['missing values last, ascending', [{ field: 'payload.b', direction: 'asc' }], ['r2', 'r1', 'r3', 'r4', 'r5']],
    ['missing values last, descending', [{ field: 'payload.b', direction: 'desc' }], ['r1', 'r2', 'r3', 'r4', 'r5']],
    ['null counts as missing', [{ field: 'payload.nested.x' }], ['r1', 'r3', 'r2', 'r4', 'r5']],
    ['each type in its order', [{ field: 'payload.mixed', direction: 'asc' }], ['r1', 'r2', 'r3', 'r4', 'r5']],
    ['each type in its order, descending', [{ field: 'payload.mixed', direction: 'desc' }], ['r4', 'r5', 'r3', 'r2', 'r1']],
    ['strings by code point', [{ field: 'payload.s', direction: 'asc' }], ['r3', 'r1', 'r4', 'r2', 'r5']],
    [
      'several keys in order',
      [
        { field: 'payload.b', direction: 'desc' },
        { field: 'id', direction: 'desc' },
      ],
      ['r1', 'r2', 'r5', 'r4', 'r3'],
    ],
    ['storage fields', [{ field: 'created_at', direction: 'desc' }], ['r5', 'r4', 'r3', 'r2', 'r1']],
    ['array elements', [{ field: 'payload.tags[0]', direction: 'desc' }], ['r2', 'r1', 'r4', 'r3', 'r5']],
    ['an index on a scalar is missing', [{ field: 'payload.s[0]', direction: 'desc' }, { field: 'payload.n[0]' }], all],
  ])('sort: %s', async (_, sort, expected) => {
    expect(await ids({ sort })).toEqual(expected);
  });

  test('a range and a sort on the same number field order by value alone', async () => {
    const where = [{ field: 'payload.n', op: 'gt', value: -5 }];
    expect(await ids({ where, sort: [{ field: 'payload.n', direction: 'desc' }] })).toEqual(['r3', 'r2', 'r1', 'r4']);
    expect(await ids({ where, sort: [{ field: 'payload.n', direction: 'asc' }], limit: 2, offset: 1 })).toEqual(['r1', 'r2']);
  });

  test('limit and offset page through the order', async () => {
    expect(await ids({ limit: 2 })).toEqual(['r1', 'r2']);
    expect(await ids({ limit: 2, offset: 2 })).toEqual(['r3', 'r4']);
    expect(await ids({ limit: 2, offset: 4 })).toEqual(['r5']);
    expect(await ids({ offset: 10 })).toEqual([]);
    expect(await ids({ limit: 0 })).toEqual([]);
  });

  test('ties are broken by created_at then id, both in the direction of a created_at key', async () => {
    const ties = { model: 'passport', version: 'ties' };
    for (const id of ['tie-b', 'tie-a', 'tie-c']) await put(store, owner, ties, id, { n: 1 });
    // The same millisecond for all three, as a burst of concurrent creates can give.
    await onDatabase(backend, database.url, "UPDATE records SET created_at = (SELECT created_at FROM records WHERE id = 'tie-b') WHERE id IN ('tie-a', 'tie-c')");
    const inTies = (filter: unknown) => ids(filter, ties);
    expect(await inTies({})).toEqual(['tie-a', 'tie-b', 'tie-c']);
    expect(await inTies({ sort: [{ field: 'created_at', direction: 'desc' }] })).toEqual(['tie-c', 'tie-b', 'tie-a']);
    expect(await inTies({ sort: [{ field: 'payload.n', direction: 'desc' }] })).toEqual(['tie-a', 'tie-b', 'tie-c']);
    expect(
      await inTies({
        sort: [
          { field: 'payload.n', direction: 'asc' },
          { field: 'created_at', direction: 'desc' },
        ],
        limit: 2,
      }),
    ).toEqual(['tie-c', 'tie-b']);
  });

  test('pages in index order are the same whether a window of the records holds them or not', async () => {
    // Read.window (query-translator.ts): on PostgreSQL a small page of a condition most records meet is
    // found among the first 2 × (offset + limit) records; a selective one falls back to the search.
    for (const where of [[{ field: 'payload.s', op: 'exists', value: true }], [{ field: 'payload.n', op: 'in', value: [10, '7'] }]]) {
      for (const sort of [[], [{ field: 'created_at', direction: 'desc' }]]) {
        const whole = await ids({ where, sort });
        for (const [offset, limit] of [
          [0, 1],
          [0, 2],
          [1, 2],
          [2, 1],
          [1, 3],
        ]) {
          for (let run = 0; run < 2; run++) expect(await ids({ where, sort, offset, limit })).toEqual(whole.slice(offset, offset + limit));
        }
      }
    }
  });

  test('values are data, never SQL', async () => {
    const hostile = `x'); DROP TABLE records; --`;
    expect(await ids({ where: [{ field: 'payload.s', op: 'eq', value: hostile }] })).toEqual([]);
    expect(await ids({ where: [{ field: 'id', op: 'contains', value: hostile }] })).toEqual([]);
    expect(await ids({})).toEqual(all);
  });
});

async function put(store: RecordStore, caller: Principal, target: ModelVersion, id: string, payload: JsonValue): Promise<StoredRecord> {
  const { record } = await store.createRecord({
    record: storableRecord({ id, ...target, payload }),
    owner: caller,
    idempotency: { scope: idempotencyScope(caller), key: id, fingerprint: requestFingerprint(target.model, target.version, storableRecord({ id, ...target, payload }).payloadJson) },
  });
  return record;
}
