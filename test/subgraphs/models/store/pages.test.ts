import fc from 'fast-check';
import { DomainError } from '../../../../kernel/errors.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { parseRecordFilter } from '../../../../kernel/records/record-filter.js';
import type { RecordPage, StorePage } from '../../../../subgraphs/models/domain/records/record-page.js';
import { idempotencyScope, requestFingerprint, storableRecord } from '../../../../subgraphs/models/domain/records/record-store.js';
import type { ModelVersion, Principal, RecordQuery, RecordStore, StoredRecord } from '../../../../subgraphs/models/domain/records/record-store.js';
import { type OrderTerm, translateKeyset } from '../../../../subgraphs/models/store/keyset.js';
import { createClient } from '@libsql/client';
import pg from 'pg';
import { DIALECTS, backendsUnderTest, createDatabase, onDatabase, openStoreAt } from './support.js';
import type { TestDatabase } from './support.js';

/**
 * Keyset pages (docs/STORE.md "Keyset pages"): walked forwards or backwards, in pages of any size,
 * they give exactly the records of the unpaged query in its order, on both backends, whatever the
 * sort (payload fields of mixed types, missing and null values, ties on every key).
 */
const backends = await backendsUnderTest();

const alice: Principal = { subject: 'alice', tenant: 'acme' };
const bob: Principal = { subject: 'bob', tenant: 'globex' };
const passport: ModelVersion = { model: 'passport', version: '1.0.0' };

/** Every JSON type for `v`, with repeats; few values for `w` (ties); numbers or nothing for `n`. */
const V: Array<JsonValue | undefined> = [
  -1e300,
  -3,
  -0.5,
  0,
  1,
  1,
  2.5,
  1e300,
  5e-324,
  123456789012345680000,
  '',
  'B',
  'a',
  'a',
  'é',
  '😀',
  'a b',
  true,
  false,
  true,
  null,
  null,
  [1],
  [],
  { a: 1 },
  undefined,
  undefined,
  7,
  'z',
  false,
];
const W: Array<JsonValue | undefined> = [1, 2, 'x', undefined, null];

function payloadOf(i: number): JsonValue {
  const payload: Record<string, JsonValue> = { i, arr: i % 4 === 0 ? ['s'] : i % 4 === 1 ? [i % 3] : [] };
  const [v, w] = [V[i % V.length], W[i % W.length]];
  if (v !== undefined) payload.v = v;
  if (w !== undefined) payload.w = w;
  if (i % 3 !== 0) payload.n = (i * 37) % 11;
  return payload;
}

const sortField = fc.constantFrom('payload.v', 'payload.w', 'payload.n', 'payload.arr[0]', 'id', 'created_at', 'updated_at', 'model');
const sort = fc.array(fc.record({ field: sortField, direction: fc.constantFrom('asc', 'desc') }), { maxLength: 3 });
const where = fc.array(
  fc.constantFrom<unknown>(
    { field: 'payload.w', op: 'exists', value: true },
    { field: 'payload.v', op: 'gt', value: 0 },
    { field: 'payload.n', op: 'lte', value: 6 },
    { field: 'payload.w', op: 'in', value: [1, 'x'] },
    { field: 'payload.v', op: 'ne', value: 'a' },
    { field: 'id', op: 'gte', value: 'r1' },
  ),
  { maxLength: 2 },
);
const queries = fc.record({ where, sort, within: fc.constantFrom<ModelVersion | null>(passport, null) });

describe.each(backends)('keyset pages on %s', (backend) => {
  let database: TestDatabase;
  let store: RecordStore;

  beforeAll(async () => {
    database = await createDatabase(backend);
    store = await openStoreAt(database.url);
    for (let i = 0; i < 40; i++) await put(store, alice, i % 9 === 8 ? { model: 'passport', version: '2.0.0' } : passport, `r${i}`, payloadOf(i));
    // Another tenant's records under the same ids, granted to alice: ties on id, broken by tie_break.
    for (const i of [3, 4, 5, 17]) {
      await put(store, bob, passport, `r${i}`, payloadOf(i + 1));
      await store.grantRead(`r${i}`, { kind: 'subject', id: 'alice' }, bob);
    }
    await put(store, bob, passport, 'hidden', payloadOf(1));
    // Ties on created_at and updated_at, as a burst of creates can give.
    await onDatabase(backend, database.url, "UPDATE records SET created_at = (SELECT created_at FROM records WHERE id = 'r2' AND namespace = 'acme') WHERE id IN ('r3', 'r5', 'r9', 'r11', 'r30')");
    await onDatabase(backend, database.url, "UPDATE records SET updated_at = (SELECT updated_at FROM records WHERE id = 'r0' AND namespace = 'acme') WHERE id IN ('r4', 'r7', 'r17')");
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  const queryOf = (raw: { where?: unknown; sort?: unknown; within?: ModelVersion | null }): RecordQuery => {
    const { where: parsedWhere, sort: parsedSort } = parseRecordFilter({ where: raw.where ?? [], sort: raw.sort ?? [] });
    return { where: parsedWhere, sort: parsedSort, within: raw.within === undefined ? passport : raw.within };
  };
  const unpaged = (query: RecordQuery) => store.queryRecords({ where: query.where, sort: query.sort, limit: 1000, offset: 0 }, alice, query.within);
  const page = (query: RecordQuery, request: Partial<StorePage>) => store.pageRecords(query, alice, { size: 100, backwards: false, after: null, before: null, keysOnly: false, ...request });

  /** Every page from one end to the other; each page checked against its keysOnly twin. */
  async function walk(query: RecordQuery, size: number, backwards: boolean): Promise<StoredRecord[]> {
    const walked: StoredRecord[][] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const request: Partial<StorePage> = backwards ? { size, backwards, before: cursor } : { size, after: cursor };
      const found = await page(query, request);
      await expectKeysOnlyTwin(query, request, found);
      expect(found.cursors).toHaveLength(found.records.length);
      expect(backwards ? found.hasNextPage : found.hasPreviousPage).toBe(cursor !== null);
      walked.push(found.records);
      const more = backwards ? found.hasPreviousPage : found.hasNextPage;
      if (!more) return (backwards ? walked.reverse() : walked).flat();
      expect(found.records).toHaveLength(size);
      cursor = backwards ? found.cursors[0]! : found.cursors.at(-1)!;
    }
    throw new Error('the walk did not end');
  }

  async function expectKeysOnlyTwin(query: RecordQuery, request: Partial<StorePage>, full: RecordPage): Promise<void> {
    const ends = await page(query, { ...request, keysOnly: true });
    const expected = full.cursors.length === 0 ? [] : [...new Set([full.cursors[0]!, full.cursors.at(-1)!])];
    expect(ends).toEqual({ records: [], cursors: expected, hasNextPage: full.hasNextPage, hasPreviousPage: full.hasPreviousPage });
  }

  test('pages walked forwards and backwards are the unpaged query, in order; keysOnly ends and counts agree', async () => {
    await fc.assert(
      fc.asyncProperty(queries, fc.integer({ min: 1, max: 7 }), async (raw, size) => {
        const query = queryOf(raw);
        const all = await unpaged(query);
        expect(await walk(query, size, false)).toEqual(all);
        expect(await walk(query, size, true)).toEqual(all);
        expect(await store.countRecords(query, alice)).toBe(all.length);
      }),
      { numRuns: 60 },
    );
  });

  test('a REST limit and offset through pages (a keysOnly page of `offset`, then `limit` after its end) answer as queryRecords', async () => {
    await fc.assert(
      fc.asyncProperty(queries, fc.nat(45), fc.nat(12), async (raw, offset, limit) => {
        const query = queryOf(raw);
        const direct = await store.queryRecords({ where: query.where, sort: query.sort, limit, offset }, alice, query.within);
        // rest-facade/http/record-query.ts: no end cursor means nothing to skip, and an empty page.
        const end = offset === 0 ? null : ((await page(query, { size: offset, keysOnly: true })).cursors.at(-1) ?? 'none');
        const paged = end === 'none' ? [] : (await page(query, { size: limit, after: end })).records;
        expect(paged).toEqual(direct);
      }),
      { numRuns: 60 },
    );
  });

  test('a page between two cursors holds the records strictly between them, from either end', async () => {
    await fc.assert(
      fc.asyncProperty(queries, fc.nat(40), fc.nat(40), fc.integer({ min: 0, max: 5 }), async (raw, i, j, size) => {
        const query = queryOf(raw);
        const all = await unpaged(query);
        const cursors = (await page(query, { size: 1000 })).cursors;
        fc.pre(all.length > 0);
        const [from, to] = [Math.min(i, j) % all.length, Math.max(i, j) % all.length].sort((a, b) => a - b) as [number, number];
        const between = all.slice(from + 1, to);
        const bounds = { after: cursors[from]!, before: cursors[to]! };
        expect((await page(query, { ...bounds, size })).records).toEqual(between.slice(0, size));
        expect((await page(query, { ...bounds, size, backwards: true })).records).toEqual(between.slice(Math.max(0, between.length - size)));
      }),
      { numRuns: 30 },
    );
  });

  test.each<[string, unknown[], string]>([
    ['default order', [], 'inserts-1'],
    ['a payload field ascending', [{ field: 'payload.v', direction: 'asc' }], 'inserts-2'],
    ['a payload field descending', [{ field: 'payload.v', direction: 'desc' }], 'inserts-3'],
    ['newest first', [{ field: 'created_at', direction: 'desc' }], 'inserts-4'],
  ])('a page stays right while records are inserted before and after its cursor: %s', async (_, sortKeys, version) => {
    const scope = { model: 'passport', version };
    const query = queryOf({ sort: sortKeys, within: scope });
    for (let i = 0; i < 12; i++) await put(store, alice, scope, `${version}-${i}`, { v: i * 10 });
    const first = await page(query, { size: 4 });
    const cursor = first.cursors.at(-1)!;
    const last = first.records.at(-1)!;
    const { v } = last.payload as { v: number };
    // Around the cursor's row: in payload order (v ± 1), and in created_at order (one moved to the start, one new).
    await put(store, alice, scope, `${version}-early`, { v: v - 1 });
    await put(store, alice, scope, `${version}-late`, { v: v + 1 });
    await onDatabase(backend, database.url, `UPDATE records SET created_at = (SELECT created_at FROM records WHERE id = '${version}-0') WHERE id = '${version}-early'`);
    const now = await unpaged(query);
    const at = now.findIndex((record) => record.id === last.id);
    expect((await page(query, { size: 4, after: cursor })).records).toEqual(now.slice(at + 1, at + 5));
    expect((await page(query, { size: 4, before: cursor, backwards: true })).records).toEqual(now.slice(Math.max(0, at - 4), at));
    // The cursor's own record deleted: its cursor still says where the page starts.
    await onDatabase(backend, database.url, `DELETE FROM records WHERE id = '${last.id}'`);
    const after = await unpaged(query);
    expect((await page(query, { size: 4, after: cursor })).records).toEqual(after.slice(at, at + 4));
  });

  test("a grantee's cursors hold nothing of the owner's tenant, and walk every record once", async () => {
    // Both r3 share a created_at (beforeAll): only the last key tells alice's from globex's.
    const orders = [[], [{ field: 'created_at', direction: 'desc' }], [{ field: 'id', direction: 'asc' }], [{ field: 'payload.v', direction: 'desc' }]];
    for (const sortKeys of orders) {
      const query = queryOf({ sort: sortKeys, within: null });
      const all = await unpaged(query);
      const { records, cursors } = await page(query, { size: 1000 });
      expect(records).toEqual(all);
      const tied = all.filter(({ id }) => id === 'r3');
      expect(tied.map(({ owner }) => owner.tenant).sort()).toEqual(['acme', 'globex']);
      expect(tied[0]!.createdAt).toBe(tied[1]!.createdAt);
      expect(records.filter(({ owner }) => owner.tenant === 'globex')).toHaveLength(4);
      for (const cursor of cursors) expect(Buffer.from(cursor, 'base64url').toString('utf8')).not.toMatch(/globex|acme/);
      expect(await walk(query, 1, false)).toEqual(all);
      expect(await walk(query, 1, true)).toEqual(all);
    }
  });

  test('keysOnly pages of any size (a REST offset) end where the records do', async () => {
    const query = queryOf({ sort: [{ field: 'payload.v', direction: 'desc' }] });
    const all = await page(query, { size: 1000 });
    for (const size of [0, 1, 2, 5, all.records.length - 1, all.records.length, all.records.length + 7, 10_000]) {
      const ends = await page(query, { size, keysOnly: true });
      const kept = all.cursors.slice(0, size);
      expect(ends.cursors).toEqual(kept.length === 0 ? [] : [...new Set([kept[0]!, kept.at(-1)!])]);
      expect(ends.hasNextPage).toBe(size < all.records.length);
    }
  });

  test('totalCount counts with the same conditions and visibility', async () => {
    expect(await store.countRecords(queryOf({ within: null }), alice)).toBe((await unpaged(queryOf({ within: null }))).length);
    expect(await store.countRecords(queryOf({ within: null }), { subject: 'mallory', tenant: 'acme' })).toBe(0);
    expect(await store.countRecords(queryOf({ where: [{ field: 'payload.v', op: 'gt', value: 0 }] }), alice)).toBe(
      (await unpaged(queryOf({ where: [{ field: 'payload.v', op: 'gt', value: 0 }] }))).length,
    );
  });

  describe('a cursor that is not one of this order is 400', () => {
    const byV = () => queryOf({ sort: [{ field: 'payload.v', direction: 'asc' }] });
    const refused = async (cursor: string, query = byV()) => {
      for (const at of ['after', 'before'] as const) {
        const error = await page(query, { [at]: cursor, backwards: at === 'before' }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(DomainError);
        expect(error).toMatchObject({ code: 'BAD_REQUEST', details: { at, reason: expect.any(String) } });
      }
    };
    const forged = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');

    test.each(['', 'not a cursor!', 'e30', forged({ a: 1 } as never), forged([]), forged(['abc', 1]), Buffer.from('[1,').toString('base64url')])('%j', async (cursor) => {
      await refused(cursor);
    });

    test('a cursor of another order, or another sort of the same field', async () => {
      const [cursor] = (await page(queryOf({}), { size: 1 })).cursors;
      await refused(cursor!);
      const [descending] = (await page(queryOf({ sort: [{ field: 'payload.v', direction: 'desc' }] }), { size: 1 })).cursors;
      await refused(descending!);
      // A range on the sorted number field orders by the number alone: another order.
      const [ranged] = (await page(queryOf({ where: [{ field: 'payload.v', op: 'gt', value: 0 }], sort: [{ field: 'payload.v', direction: 'asc' }] }), { size: 1 })).cursors;
      await refused(ranged!);
    });

    test('issue 24: a cursor of another filter (or model version) with the same order', async () => {
      const filtered = (where: unknown, within?: ModelVersion | null) => queryOf({ where, sort: [{ field: 'payload.v', direction: 'asc' }], within });
      const [cursor] = (await page(filtered([{ field: 'payload.v', op: 'exists', value: true }]), { size: 1 })).cursors;
      expect((await page(filtered([{ field: 'payload.v', op: 'exists', value: true }]), { after: cursor! })).records.length).toBeGreaterThan(0);
      await refused(cursor!);
      await refused(cursor!, filtered([{ field: 'payload.v', op: 'exists', value: false }]));
      await refused(cursor!, filtered([{ field: 'payload.v', op: 'exists', value: true }], null));
    });

    test('a cursor of this order with values of the wrong kind', async () => {
      const [cursor] = (await page(byV(), { size: 1 })).cursors;
      const [fingerprint, ...values] = JSON.parse(Buffer.from(cursor!, 'base64url').toString()) as unknown[];
      const tampered = (index: number, value: unknown) => forged([fingerprint, ...values.map((v, i) => (i === index ? value : v))]);
      expect((await page(byV(), { after: forged([fingerprint, ...values]) })).records.length).toBeGreaterThan(0);
      for (const [index, value] of [
        [0, 'yes'],
        [0, null],
        [1, 1.5],
        [2, 'x'],
        [2, true],
        [3, 7],
        [3, 'nul\u0000'],
        [4, 1],
        [5, '2025-13-01T00:00:00.000Z'],
        [5, '+275760-09-13T00:00:00.000Z'],
        [5, '0000-01-01T00:00:00.000Z'],
        [5, 1700000000000],
        [6, null],
      ] as Array<[number, unknown]>) {
        await refused(tampered(index, value));
      }
      await refused(forged([fingerprint, ...values, 'extra']));
    });
  });
});

describe.each(backends)('the cursor predicate on %s', (backend) => {
  let database: TestDatabase;
  let select: (sql: string, values?: unknown[]) => Promise<number[]>;
  let close: () => Promise<void>;
  /** Every combination of NULL and values, twice: rows [a, b, id]. */
  const combinations = [null, 1, 2].flatMap((a) => [null, 'x', 'y'].map((b) => [a, b]));
  const data = [...combinations, ...combinations].map(([a, b], id) => [a, b, id] as Array<string | number | null>);

  beforeAll(async () => {
    database = await createDatabase(backend);
    if (backend === 'sqlite') {
      const client = createClient({ url: database.url });
      select = async (sql, args = []) => (await client.execute({ sql, args: args as never })).rows.map((row) => Number(row[0]));
      close = async () => client.close();
    } else {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      select = async (sql, values = []) => (await client.query(sql, values)).rows.map((row) => Number(Object.values(row)[0]));
      close = () => client.end();
    }
    await select('CREATE TABLE t (a INTEGER, b TEXT, id INTEGER NOT NULL)');
    await select(`INSERT INTO t VALUES ${data.map((row) => `(${row.map((value) => (value === null ? 'NULL' : typeof value === 'string' ? `'${value}'` : value)).join(', ')})`).join(', ')}`);
  });
  afterAll(async () => {
    await close();
    await database.drop();
  });

  const directions = ['ASC', 'DESC'] as const;
  test.each(directions.flatMap((a) => directions.flatMap((b) => directions.map((id) => [a, b, id]))))(
    'a %s, b %s, id %s: after and before a row are the rows after and before it in the ORDER BY, NULLs where it puts them',
    async (a, b, id) => {
      const order: OrderTerm[] = [
        { expression: 't.a', direction: a, kind: 'integer', nullable: true },
        { expression: 't.b', direction: b, kind: 'text', nullable: true },
        { expression: 't.id', direction: id, kind: 'integer', nullable: false },
      ];
      const orderBy = order.map(({ expression, direction }) => `${expression} ${direction}`).join(', ');
      const ordered = await select(`SELECT id FROM t ORDER BY ${orderBy}`);
      for (const [position, row] of ordered.entries()) {
        for (const side of ['after', 'before'] as const) {
          const { sql, values } = translateKeyset(DIALECTS[backend], order, data[row]!, side);
          const expected = side === 'after' ? ordered.slice(position + 1) : ordered.slice(0, position);
          expect(await select(`SELECT id FROM t WHERE ${sql} ORDER BY ${orderBy}`, values)).toEqual(expected);
        }
      }
    },
  );
});

async function put(store: RecordStore, caller: Principal, target: ModelVersion, id: string, payload: JsonValue): Promise<StoredRecord> {
  const { record } = await store.createRecord({
    record: storableRecord({ id, ...target, payload }),
    owner: caller,
    idempotency: {
      scope: idempotencyScope(caller),
      key: `${target.version}/${id}`,
      fingerprint: requestFingerprint(target.model, target.version, storableRecord({ id, ...target, payload }).payloadJson),
    },
  });
  return record;
}
