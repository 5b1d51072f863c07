import fc from 'fast-check';
import { type Backend, type TestDatabase, backendsUnderTest, createDatabase } from '../store/support.js';
import { HOSTILE_SYSTEM_ENV, RUNS, expectNoLeak, hostileJson, hostileString } from '../support/hostile-input.js';
import { type Answer, NO_AUTH, type TestSystem, call, startTestSystem } from '../support/system.js';

/**
 * Issue 8, hostile input: property-based tests of the records filter language through core
 * `:query`, `POST /records/query` and GraphQL `records(filter:)`. Any filter is answered 200 with
 * records or 400 naming the bad part; never a 5xx, a stack trace or SQL text. With PostgreSQL at
 * hand, both backends hold the same records and must answer every filter identically.
 */
const BARE = '/models/bare/versions/0.1';

/** Payloads mixing every JSON type, missing fields, quotes, unicode and huge numbers. */
const SEED: unknown[] = [
  { n: 1, s: 'a', b: true, a: [1, 2, 3], o: { k: 'v' } },
  { n: 1.0, s: 'A', b: false, a: ['x', 'y'], o: { k: 'w', n: 2 } },
  { n: -0.5, s: "it's", b: null, a: [], o: {} },
  { n: 1e308, s: 'quote"d', a: [[1], { k: 1 }], o: { k: null } },
  { n: -1e308, s: 'back\\slash', a: [null] },
  { n: 123456789012345680000, s: 'ünïcødé 😀', b: 'true' },
  { n: 0.1 + 0.2, s: '', o: { k: ['v', 'w'] } },
  { n: '1', s: 'x%_y', a: 'not an array' },
  { n: null, s: null, b: 0 },
  { n: 2, s: 'b', a: [2, 1], x: { y: { z: [0, { w: 'deep' }] } } },
  { s: 'z' },
  {},
  { n: 5e-324, s: 'a\nb\tc', a: [true, false] },
  { n: 42, s: '2025-01-01T00:00:00Z', a: ['a', 'A', 'ä'] },
];

const key = fc.oneof(fc.constantFrom('n', 's', 'b', 'a', 'o', 'k', 'x', 'y', 'z', 'w', 'id', '__proto__', 'constructor'), fc.stringMatching(/^[A-Za-z0-9_-]{1,5}$/));
const payloadField = fc
  .tuple(fc.array(key, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(3), { maxLength: 2 }))
  .map(([keys, indexes]) => `payload.${keys.join('.')}${indexes.map((i) => `[${i}]`).join('')}`);
const textField = fc.constantFrom('id', 'model', 'version');
const timestampField = fc.constantFrom('created_at', 'updated_at');
const instant = fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const seedScalar = fc.constantFrom<unknown>(1, 1.0, -0.5, 2, 42, 1e308, 123456789012345680000, 'a', 'A', "it's", 'b', 'z', '', 'r01', 'v', 'x%_y', 'quote"d', true, false, null, 0.1 + 0.2);
const rangeOperand = fc.constantFrom<unknown>(1, -0.5, 2, 42, 1e308, -1e308, 0, 'a', 'A', 'b', 'z', '', 'r05', 'x%_y');
const seedJson = fc.oneof(seedScalar, fc.array(seedScalar, { maxLength: 3 }), fc.dictionary(key, seedScalar, { maxKeys: 2 }));

/** A condition the parser accepts: operands of the right type for the operator and the field. */
const wellFormedCondition = fc.oneof(
  fc.record({ field: fc.oneof(textField, payloadField), op: fc.constantFrom('eq', 'ne', 'contains'), value: seedJson }),
  fc.record({ field: fc.oneof(textField, payloadField), op: fc.constant('in'), value: fc.array(seedScalar, { minLength: 1, maxLength: 4 }) }),
  fc.record({ field: fc.oneof(textField, timestampField, payloadField), op: fc.constant('exists'), value: fc.boolean() }),
  fc.record({ field: fc.oneof(textField, payloadField), op: fc.constantFrom('gt', 'gte', 'lt', 'lte'), value: rangeOperand }),
  fc.record({ field: timestampField, op: fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte'), value: instant }),
  fc.record({ field: timestampField, op: fc.constant('in'), value: fc.array(instant, { minLength: 1, maxLength: 3 }) }),
);
const wellFormedFilter = fc.record(
  {
    where: fc.array(wellFormedCondition, { maxLength: 3 }),
    sort: fc.array(fc.record({ field: fc.oneof(textField, timestampField, payloadField), direction: fc.constantFrom('asc', 'desc') }, { requiredKeys: ['field'] }), { maxLength: 3 }),
    limit: fc.integer({ min: 0, max: 1000 }),
    offset: fc.nat(20),
  },
  { requiredKeys: [] },
);

/** Anything: hostile fields, operators, operands, pages and shapes. */
const anyField = fc.oneof(textField, timestampField, payloadField, hostileString);
const anyOp = fc.oneof(fc.constantFrom('eq', 'ne', 'in', 'contains', 'exists', 'gt', 'gte', 'lt', 'lte'), hostileString);
const anyValue = fc.oneof(seedJson, hostileJson, instant);
const hostileFilter = fc.oneof(
  fc.record(
    {
      where: fc.array(fc.oneof(fc.record({ field: anyField, op: anyOp, value: anyValue }, { requiredKeys: ['field', 'op'] }), hostileJson), { maxLength: 4 }),
      sort: fc.array(fc.oneof(fc.record({ field: anyField, direction: fc.oneof(fc.constantFrom('asc', 'desc'), hostileString) }, { requiredKeys: ['field'] }), hostileJson), { maxLength: 3 }),
      limit: fc.oneof(fc.integer({ min: -2, max: 1002 }), hostileJson),
      offset: fc.oneof(fc.nat(50), hostileJson),
    },
    { requiredKeys: [] },
  ),
  hostileJson,
);
const filter = fc.oneof({ weight: 3, arbitrary: wellFormedFilter }, { weight: 1, arbitrary: hostileFilter });

interface Backed {
  backend: Backend;
  database: TestDatabase;
  sut: TestSystem;
}

const backends = await backendsUnderTest();
const systems: Backed[] = [];

beforeAll(async () => {
  for (const backend of backends) {
    const database = await createDatabase(backend);
    const sut = await startTestSystem({ ...NO_AUTH, ...HOSTILE_SYSTEM_ENV, DATABASE_URL: database.url });
    systems.push({ backend, database, sut });
    // Seeded one after another in id order, so creation order is the same on both backends.
    for (const [index, payload] of SEED.entries()) {
      const id = `r${String(index).padStart(2, '0')}`;
      const created = await call(sut.url('core'), 'POST', `${BARE}:create`, { body: { payload: { ...(payload as object), id } }, headers: { 'idempotency-key': id } });
      expect(created.status).toBe(200);
      const stored = await call(sut.url('records'), 'POST', '/records', { body: { id: `s${id}`, model: 'other', version: '1', payload }, headers: { 'idempotency-key': `s${id}` } });
      expect(stored.status).toBe(200);
    }
  }
});
afterAll(async () => {
  for (const { sut, database } of systems) {
    await sut.stop();
    await database.drop();
  }
});

/** 200 with well-formed records, at most `limit`, no duplicates; or 400 naming the bad part. */
function expectQueryAnswer(answer: Answer, badRequest: string, within?: { model: string; version: string }): string[] | 'refused' {
  expectNoLeak(answer);
  expect([200, 400]).toContain(answer.status);
  if (answer.status === 400) {
    expect(answer.json).toEqual({ code: badRequest, message: expect.any(String), details: expect.anything() });
    return 'refused';
  }
  const records = answer.json.records as Array<Record<string, unknown>>;
  for (const record of records) {
    expect(Object.keys(record).sort()).toEqual(['id', 'model', 'payload', 'version']);
    if (within) expect({ model: record.model, version: record.version }).toEqual(within);
  }
  const ids = records.map((record) => record.id as string);
  expect(new Set(ids).size).toBe(ids.length);
  return ids;
}

test('core :query: any filter is 200 with records of the URL model or 400; every backend answers alike', async () => {
  await fc.assert(
    fc.asyncProperty(filter, async (f) => {
      const outcomes = [];
      for (const { sut } of systems) {
        const answer = await call(sut.url('core'), 'POST', `${BARE}:query`, { body: { filter: f } });
        outcomes.push(expectQueryAnswer(answer, 'BAD_REQUEST', { model: 'bare', version: '0.1' }));
      }
      expect(new Set(outcomes.map((o) => JSON.stringify(o))).size).toBe(1);
    }),
    RUNS,
  );
});

test('records POST /records/query: any filter is 200 with records or 400; every backend answers alike', async () => {
  await fc.assert(
    fc.asyncProperty(filter, async (f) => {
      const outcomes = [];
      for (const { sut } of systems) {
        const answer = await call(sut.url('records'), 'POST', '/records/query', { body: { filter: f } });
        outcomes.push(expectQueryAnswer(answer, 'bad_request'));
      }
      expect(new Set(outcomes.map((o) => JSON.stringify(o))).size).toBe(1);
    }),
    RUNS,
  );
});

test('GraphQL records(filter:): records or BAD_REQUEST, never an internal error', async () => {
  const query = 'query ($filter: JSON) { records(filter: $filter) { id model version payload } }';
  await fc.assert(
    fc.asyncProperty(filter, async (f) => {
      for (const { sut } of systems) {
        const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables: { filter: f } } });
        expectNoLeak(answer);
        expect(answer.status).toBe(200);
        if (answer.json.errors) expect(answer.json.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['BAD_REQUEST']);
        else expect(Array.isArray(answer.json.data.records)).toBe(true);
      }
    }),
    { numRuns: 100 },
  );
});

test('the seeded records are intact after every hostile filter (nothing was injected)', async () => {
  for (const { sut } of systems) {
    const all = await call(sut.url('core'), 'POST', `${BARE}:query`, { body: { filter: { limit: 1000 } } });
    expect(all.json.records.map((r: { id: string }) => r.id)).toEqual(SEED.map((_, i) => `r${String(i).padStart(2, '0')}`));
  }
});
