import fc from 'fast-check';
import { type Backend, type TestDatabase, backendsUnderTest, createDatabase } from '../subgraphs/models/store/support.js';
import { HOSTILE_SYSTEM_ENV, RUNS, expectNoLeak, hostileJson, hostileString } from '../support/hostile-input.js';
import { type Answer, NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 8, hostile input: property-based tests of the records filter language through core
 * `:query`, `POST /records/query` and GraphQL `records(filter:, orderBy:, first:, after:)` (the
 * typed filter: fields, payload paths, operators and typed values). Any filter is answered 200 with
 * records or 400 naming the bad part (GraphQL: records or BAD_REQUEST); never a 5xx, an internal
 * error, a stack trace or SQL text. With PostgreSQL at hand, both backends hold the same records
 * and must answer every filter identically.
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

/*
 * The graph's typed filter (RecordFilter, RecordOrder): every input below is a valid GraphQL value
 * of its type, so whatever the filter language makes of it is the graph's answer to give.
 */
type TypedValue = Partial<Record<'string' | 'number' | 'boolean' | 'dateTime' | 'null' | 'json', unknown>>;
type TypedCondition = { field: string; path?: string | null; operator: string; value?: TypedValue | null; values?: TypedValue[] | null };

/** A well-formed JSON-form field as the typed input names it: a column, or PAYLOAD and a path. */
function typedField(field: string): { field: string; path?: string } {
  return field.startsWith('payload.') ? { field: 'PAYLOAD', path: field.slice('payload.'.length) } : { field: field.toUpperCase() };
}

/** A JSON operand as a FilterValue: the member its type names; an instant of a timestamp field as a dateTime. */
function typedValue(value: unknown, timestamp: boolean): TypedValue {
  if (value === null) return { null: true };
  if (timestamp && typeof value === 'string') return { dateTime: value };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return { [typeof value]: value };
  return { json: value };
}

/** A condition the parser accepts (wellFormedCondition), typed. */
const wellFormedTypedCondition = wellFormedCondition.map(({ field, op, value }): TypedCondition => {
  const timestamp = field === 'created_at' || field === 'updated_at';
  const operand = op === 'in' ? { values: (value as unknown[]).map((v) => typedValue(v, timestamp)) } : { value: typedValue(value, timestamp && op !== 'exists') };
  return { ...typedField(field), operator: op.toUpperCase(), ...operand };
});

/** Paths the filter language refuses among those it accepts: empty, hostile, dotted wrong, indexes wrong. */
const anyPath = fc.oneof(
  payloadField.map((field) => field.slice('payload.'.length)),
  hostileString,
  fc.constantFrom('', '.', 'a.', '.a', 'a..b', '[0]', 'a[x]', 'a[-1]', 'a[1234567890]', 'a.b[0][1]', 'a b', 'a/b', '$.a', '*'),
);
const anyTypedField = fc.constantFrom('ID', 'MODEL', 'VERSION', 'CREATED_AT', 'UPDATED_AT', 'PAYLOAD');
const anyOperator = fc.constantFrom('EQ', 'NE', 'IN', 'CONTAINS', 'EXISTS', 'GT', 'GTE', 'LT', 'LTE');
/** Any member with any operand of its GraphQL type: strings, finite numbers, instants, JSON of every shape. */
const anyMember = fc.oneof(
  fc.record({ string: fc.oneof(hostileString, instant, fc.constantFrom('a', 'z', 'r01', '')) }),
  fc.record({ number: fc.oneof(fc.constantFrom(0, -0, 1, 2, 42, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, 2 ** 64), fc.double({ noNaN: true, noDefaultInfinity: true })) }),
  fc.record({ boolean: fc.boolean() }),
  fc.record({ dateTime: fc.oneof(instant, fc.constantFrom('2025-01-01T00:00:00+02:00', '2025-06-30T23:59:59.999-11:00', '1970-01-01T00:00:00Z')) }),
  fc.record({ null: fc.boolean() }),
  fc.record({ json: fc.oneof(seedJson, hostileJson) }),
);
/** Mostly one member; sometimes none or several (the graph's rule is exactly one). */
const anyTypedValue: fc.Arbitrary<TypedValue> = fc.oneof(
  { weight: 6, arbitrary: anyMember },
  { weight: 1, arbitrary: fc.tuple(anyMember, anyMember).map(([a, b]) => ({ ...a, ...b })) },
  { weight: 1, arbitrary: fc.constant({}) },
);
const hostileTypedCondition: fc.Arbitrary<TypedCondition> = fc.record(
  {
    field: anyTypedField,
    path: fc.oneof(fc.constant(null), anyPath),
    operator: anyOperator,
    value: fc.oneof(fc.constant(null), anyTypedValue),
    values: fc.oneof(fc.constant(null), fc.array(anyTypedValue, { maxLength: 4 })),
  },
  { requiredKeys: ['field', 'operator'] },
);
const typedOrder = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ field: fc.oneof(textField, timestampField, payloadField), direction: fc.constantFrom('asc', 'desc') })
      .map(({ field, direction }) => ({ ...typedField(field), direction: direction.toUpperCase() })),
  },
  { weight: 1, arbitrary: fc.record({ field: anyTypedField, path: fc.oneof(fc.constant(null), anyPath), direction: fc.constantFrom('ASC', 'DESC') }, { requiredKeys: ['field'] }) },
);
/** A page: mostly `first` (often small, so more pages follow), sometimes `last`, both, none or a size out of range. */
const typedPage = fc.oneof(
  { weight: 6, arbitrary: fc.record({ first: fc.integer({ min: 0, max: 12 }) }) },
  { weight: 2, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ last: fc.integer({ min: 0, max: 12 }) }) },
  { weight: 1, arbitrary: fc.record({ first: fc.integer({ min: -2, max: 1002 }), last: fc.integer({ min: -1, max: 30 }) }, { requiredKeys: [] }) },
);
/** The `records` arguments: a typed filter, an order and a page. */
const typedArguments = fc
  .tuple(
    fc.record(
      {
        filter: fc.oneof(
          fc.constant(null),
          fc.record(
            { conditions: fc.oneof(fc.constant(null), fc.array(fc.oneof({ weight: 4, arbitrary: wellFormedTypedCondition }, { weight: 1, arbitrary: hostileTypedCondition }), { maxLength: 3 })) },
            { requiredKeys: [] },
          ),
        ),
        orderBy: fc.array(typedOrder, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    typedPage,
  )
  .map(([query, page]): Record<string, unknown> & { first?: number; last?: number } => ({ ...query, ...page }));

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
    const sut = await startInProcessSystem({ ...NO_AUTH, ...HOSTILE_SYSTEM_ENV, DATABASE_URL: database.url });
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

const CONNECTION = 'nodes { id model version payload } totalCount pageInfo { hasNextPage hasPreviousPage endCursor }';
const RECORDS = `query ($filter: RecordFilter, $orderBy: [RecordOrder!], $first: Int, $after: String, $last: Int) {
  records(filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last) { ${CONNECTION} }
}`;
const BARE_RECORDS = `query ($filter: RecordFilter, $orderBy: [RecordOrder!], $first: Int, $after: String, $last: Int) {
  modelVersion(model: "bare", version: "0.1") { records(filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last) { ${CONNECTION} } }
}`;

interface Connection {
  nodes: Array<Record<string, unknown>>;
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
}

/** 200 with a page of well-formed records (of bare 0.1 `within` it), or only BAD_REQUEST errors. */
async function graphRecords(sut: TestSystem, variables: Record<string, unknown>, within: boolean): Promise<Connection | 'refused'> {
  const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: within ? BARE_RECORDS : RECORDS, variables } });
  expectNoLeak(answer);
  expect(answer.status).toBe(200);
  if (answer.json.errors) {
    expect(answer.json.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['BAD_REQUEST']);
    return 'refused';
  }
  const page: Connection = within ? answer.json.data.modelVersion.records : answer.json.data.records;
  for (const record of page.nodes) {
    expect(Object.keys(record).sort()).toEqual(['id', 'model', 'payload', 'version']);
    if (within) expect({ model: record.model, version: record.version }).toEqual({ model: 'bare', version: '0.1' });
  }
  const ids = page.nodes.map((record) => record.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBeLessThanOrEqual(page.totalCount);
  return page;
}

/** The same page with no record read: where it ends, and the total. */
async function keysOnlyPage(sut: TestSystem, variables: Record<string, unknown>, within: boolean): Promise<Omit<Connection, 'nodes'>> {
  const connection = 'totalCount pageInfo { hasNextPage hasPreviousPage endCursor }';
  const args = 'filter: $filter, orderBy: $orderBy, first: $first';
  const query = within
    ? `query ($filter: RecordFilter, $orderBy: [RecordOrder!], $first: Int) { modelVersion(model: "bare", version: "0.1") { records(${args}) { ${connection} } } }`
    : `query ($filter: RecordFilter, $orderBy: [RecordOrder!], $first: Int) { records(${args}) { ${connection} } }`;
  const { filter, orderBy, first } = variables;
  const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables: { filter, orderBy, first } } });
  expect(answer.json.errors).toBeUndefined();
  return within ? answer.json.data.modelVersion.records : answer.json.data.records;
}

test('GraphQL records(filter:, orderBy:, first:): any typed filter is records or BAD_REQUEST, never an internal error; pages follow on; every backend answers alike', async () => {
  await fc.assert(
    fc.asyncProperty(typedArguments, fc.boolean(), async (args, within) => {
      const outcomes = [];
      for (const { sut } of systems) {
        const page = await graphRecords(sut, args, within);
        if (page === 'refused') {
          outcomes.push('refused');
          continue;
        }
        const ids = page.nodes.map((record) => record.id);
        if (args.first !== undefined && args.last === undefined) expect(ids.length).toBeLessThanOrEqual(args.first);
        if (!page.pageInfo.hasNextPage && !page.pageInfo.hasPreviousPage) expect(ids.length).toBe(page.totalCount);
        // The end cursor round trip: the next page continues this one, with records not seen yet.
        if (args.last === undefined && page.pageInfo.hasNextPage && ids.length > 0) {
          const next = await graphRecords(sut, { ...args, after: page.pageInfo.endCursor }, within);
          expect(next).not.toBe('refused');
          const nextIds = (next as Connection).nodes.map((record) => record.id);
          expect(nextIds.length).toBeGreaterThan(0);
          expect(nextIds.filter((id) => ids.includes(id))).toEqual([]);
          expect((next as Connection).pageInfo.hasPreviousPage).toBe(true);
          const both = await graphRecords(sut, { ...args, first: ids.length + nextIds.length }, within);
          expect((both as Connection).nodes.map((record) => record.id)).toEqual([...ids, ...nextIds]);
          // Where the page ends, read without its records (what a REST offset asks), leads to the same next page.
          const keys = await keysOnlyPage(sut, args, within);
          expect({ hasNextPage: keys.pageInfo.hasNextPage, totalCount: keys.totalCount }).toEqual({ hasNextPage: true, totalCount: page.totalCount });
          const afterKeys = await graphRecords(sut, { ...args, after: keys.pageInfo.endCursor }, within);
          expect((afterKeys as Connection).nodes.map((record) => record.id)).toEqual(nextIds);
          outcomes.push({ ids, nextIds, totalCount: page.totalCount });
        } else {
          outcomes.push({ ids, totalCount: page.totalCount });
        }
      }
      expect(new Set(outcomes.map((o) => JSON.stringify(o))).size).toBe(1);
    }),
    { numRuns: 100 },
  );
});

test('GraphQL: a cursor the graph never gave is BAD_REQUEST, or a page, never an internal error', async () => {
  const { sut } = systems[0]!;
  const given = await graphRecords(sut, { first: 2 }, false);
  const real = (given as Connection).pageInfo.endCursor!;
  const cursor = fc.oneof(
    hostileString,
    fc.json().map((json) => Buffer.from(json).toString('base64url')),
    fc.nat(real.length).chain((cut) => fc.constantFrom(real.slice(0, cut), `${real}x`, `x${real}`, real.split('').reverse().join(''))),
  );
  await fc.assert(
    fc.asyncProperty(cursor, fc.constantFrom('after', 'before'), fc.boolean(), async (at, side, within) => {
      await graphRecords(sut, side === 'after' ? { first: 3, after: at } : ({ last: 3, before: at } as Record<string, unknown>), within);
    }),
    { numRuns: 50 },
  );
});

test("GraphQL: a dateTime operand that is not an instant is the client's error, never an internal one, as a variable or in the document", async () => {
  for (const dateTime of ['yesterday', '2025-13-45T99:99:99Z', '', '2025-01-01']) {
    const variables = { filter: { conditions: [{ field: 'CREATED_AT', operator: 'GT', value: { dateTime } }] } };
    const literal = `{ records(filter: { conditions: [{ field: CREATED_AT, operator: GT, value: { dateTime: ${JSON.stringify(dateTime)} } }] }) { nodes { id } } }`;
    for (const body of [{ query: RECORDS, variables }, { query: literal }]) {
      const answer = await call(systems[0]!.sut.url('gateway'), 'POST', '/graphql', { body });
      expectNoLeak(answer);
      const codes = answer.json.errors?.map((e: { extensions: { code: string } }) => e.extensions.code);
      expect({ body, codes }).toEqual({ body, codes: [expect.stringMatching(/^(BAD_USER_INPUT|GRAPHQL_VALIDATION_FAILED|BAD_REQUEST)$/)] });
    }
  }
});

test('the seeded records are intact after every hostile filter (nothing was injected)', async () => {
  for (const { sut } of systems) {
    const all = await call(sut.url('core'), 'POST', `${BARE}:query`, { body: { filter: { limit: 1000 } } });
    expect(all.json.records.map((r: { id: string }) => r.id)).toEqual(SEED.map((_, i) => `r${String(i).padStart(2, '0')}`));
  }
});
