import { DEFAULT_JSON_MAX_DEPTH } from '../../kernel/json-depth.js';
import { HOSTILE_SYSTEM_ENV, expectNoLeak } from '../support/hostile-input.js';
import { type Answer, NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 8, hostile input: bodies at the size limit and one byte over (413), nested to the depth
 * limit and one level deeper (400, SERVER_JSON_MAX_DEPTH), nested 100,000 levels, and arrays of
 * 100,000 elements, at every facade that reads a body.
 */
const MAX_BYTES = 65_536;
const MAX_DEPTH = DEFAULT_JSON_MAX_DEPTH;
const SAMPLE = '/models/re-indicators-specification/versions/0.0.4';
let keyCounter = 0;
const key = () => ({ 'idempotency-key': `limits-${++keyCounter}` });

interface Target {
  name: string;
  listener: string;
  path: string;
  /** The request body with `fill` somewhere inside it. */
  body(fill: unknown): unknown;
  headers?: () => Record<string, string>;
  /** The facade's 413 and its depth 400. */
  tooLarge(answer: Answer): void;
  tooDeep(answer: Answer): void;
}

const codeEnvelope = (code: string, details: unknown) => (answer: Answer) => expect(answer.json).toEqual({ code, message: expect.any(String), details });

const TARGETS: Target[] = [
  {
    name: 'core :validate',
    listener: 'core',
    path: `${SAMPLE}:validate`,
    body: (fill) => ({ payload: { fill } }),
    tooLarge: codeEnvelope('PAYLOAD_TOO_LARGE', { max_bytes: MAX_BYTES }),
    tooDeep: codeEnvelope('BAD_REQUEST', { max_depth: MAX_DEPTH }),
  },
  {
    name: 'core :create',
    listener: 'core',
    path: '/models/bare/versions/0.1:create',
    headers: key,
    body: (fill) => ({ payload: { fill } }),
    tooLarge: codeEnvelope('PAYLOAD_TOO_LARGE', { max_bytes: MAX_BYTES }),
    tooDeep: codeEnvelope('BAD_REQUEST', { max_depth: MAX_DEPTH }),
  },
  {
    name: 'core :query',
    listener: 'core',
    path: '/models/bare/versions/0.1:query',
    body: (fill) => ({ filter: { where: [{ field: 'payload.fill', op: 'eq', value: fill }] } }),
    tooLarge: codeEnvelope('PAYLOAD_TOO_LARGE', { max_bytes: MAX_BYTES }),
    tooDeep: codeEnvelope('BAD_REQUEST', { max_depth: MAX_DEPTH }),
  },
  {
    name: 'records POST /records',
    listener: 'records',
    path: '/records',
    headers: key,
    body: (fill) => ({ id: `limits-${keyCounter}`, model: 'm', version: '1', payload: { fill } }),
    tooLarge: codeEnvelope('payload_too_large', { max_bytes: MAX_BYTES }),
    tooDeep: codeEnvelope('bad_request', { max_depth: MAX_DEPTH }),
  },
  {
    name: 'records POST /records/query',
    listener: 'records',
    path: '/records/query',
    body: (fill) => ({ filter: { where: [{ field: 'payload.fill', op: 'eq', value: fill }] } }),
    tooLarge: codeEnvelope('payload_too_large', { max_bytes: MAX_BYTES }),
    tooDeep: codeEnvelope('bad_request', { max_depth: MAX_DEPTH }),
  },
  {
    name: 'indicators POST /compute',
    listener: 'indicators',
    path: '/compute',
    body: (fill) => ({ payload: { indicator_specification_id: 'REcycle_Sample_Battery', fill } }),
    tooLarge: codeEnvelope('PAYLOAD_TOO_LARGE', { max_bytes: MAX_BYTES }),
    tooDeep: codeEnvelope('INVALID_REQUEST_BODY', { problems: [{ path: '$', message: expect.stringContaining(`deeper than ${MAX_DEPTH}`) }] }),
  },
  {
    name: 'impact POST /compute',
    listener: 'impact',
    path: '/compute',
    body: (fill) => ({ product_system: { fill } }),
    tooLarge: (answer) => expect(answer.json).toEqual({ detail: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } }),
    tooDeep: (answer) => expect(answer.json).toEqual({ detail: 'There was an error parsing the body' }),
  },
];

/** The deepest nesting of arrays and objects in a JSON text. */
function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return max;
}

/** The body as text padded with a string so that it is exactly `bytes` long. */
function bodyOfSize(target: Target, bytes: number): string {
  const base = JSON.stringify(target.body('')).length;
  return JSON.stringify(target.body('x'.repeat(bytes - base)));
}

/** The body as text nested exactly `depth` levels deep (written as text: too deep for JSON.stringify). */
function bodyOfDepth(target: Target, depth: number): string {
  const levels = depth - depthOf(JSON.stringify(target.body(0)));
  return JSON.stringify(target.body('FILL')).replace('"FILL"', `${'['.repeat(levels)}0${']'.repeat(levels)}`);
}

const send = (sut: TestSystem, target: Target, text: string) => call(sut.url(target.listener), 'POST', target.path, { body: text, headers: target.headers?.() ?? {} });

describe(`SERVER_REQUEST_MAX_BYTES=${MAX_BYTES} and the default depth limit`, () => {
  let sut: TestSystem;
  beforeAll(async () => {
    sut = await startInProcessSystem({ ...NO_AUTH, ...HOSTILE_SYSTEM_ENV, SERVER_REQUEST_MAX_BYTES: String(MAX_BYTES) });
  });
  afterAll(() => sut?.stop());

  describe.each(TARGETS.map((target) => [target.name, target] as const))('%s', (_name, target) => {
    test('a body of exactly the limit is read; one byte more is 413 in the envelope', async () => {
      const atLimit = bodyOfSize(target, MAX_BYTES);
      expect(Buffer.byteLength(atLimit)).toBe(MAX_BYTES);
      const read = await send(sut, target, atLimit);
      expect(read.status).not.toBe(413);
      expect(read.status).toBeLessThan(500);
      const over = await send(sut, target, bodyOfSize(target, MAX_BYTES + 1));
      expect(over.status).toBe(413);
      target.tooLarge(over);
    });

    test(`nesting of exactly ${MAX_DEPTH} levels is read; ${MAX_DEPTH + 1} is 400 in the envelope`, async () => {
      const atLimit = await send(sut, target, bodyOfDepth(target, MAX_DEPTH));
      expect(atLimit.status).toBeLessThan(500);
      expect(atLimit.text).not.toMatch(/deeper than|error parsing the body/);
      const over = await send(sut, target, bodyOfDepth(target, MAX_DEPTH + 1));
      expect(over.status).toBe(400);
      target.tooDeep(over);
    });
  });

  test('the GraphQL endpoint: a body of exactly the limit is read; one byte more is 413', async () => {
    const body = (fill: string) => JSON.stringify({ query: '{ modelVersions { model } }', variables: { fill } });
    const base = body('').length;
    const read = await call(sut.url('gateway'), 'POST', '/graphql', { body: body('x'.repeat(MAX_BYTES - base)) });
    expect(read.status).toBe(200);
    const over = await call(sut.url('gateway'), 'POST', '/graphql', { body: body('x'.repeat(MAX_BYTES - base + 1)) });
    expect(over.status).toBe(413);
    expect(over.json.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('100,000 levels, 100,000 elements (default 1 MiB limit): answered, not crashed', () => {
  let sut: TestSystem;
  const big = Array.from({ length: 100_000 }, (_, i) => i % 10);
  beforeAll(async () => {
    sut = await startInProcessSystem({ ...NO_AUTH, ...HOSTILE_SYSTEM_ENV });
  });
  afterAll(() => sut?.stop());

  test.each(TARGETS.map((target) => [target.name, target] as const))('%s: 100,000 levels of nesting, well formed or not, are 400', async (_name, target) => {
    for (const text of [bodyOfDepth(target, 100_000), '['.repeat(200_000), `{"a":${'{"a":'.repeat(50_000)}1`]) {
      const answer = await send(sut, target, text);
      expect(answer.status).toBe(400);
      target.tooDeep(answer);
    }
  });

  test('core: validated against the sample model, stored under bare, found again whole', async () => {
    const core = sut.url('core');
    const validated = await call(core, 'POST', `${SAMPLE}:validate`, { body: { payload: { id: 'big', parameter_assessments: big } } });
    expect(validated.status).toBe(200);
    expect(validated.json.results).toHaveLength(3);
    const created = await call(core, 'POST', '/models/bare/versions/0.1:create', { body: { payload: { id: 'big-core', items: big } }, headers: { 'idempotency-key': 'big-core' } });
    expect(created.status).toBe(200);
    const found = await call(core, 'POST', '/models/bare/versions/0.1:query', { body: { filter: { where: [{ field: 'id', op: 'eq', value: 'big-core' }] } } });
    expect(found.status).toBe(200);
    expect(found.json.records[0].payload.items).toEqual(big);
    const filtered = await call(core, 'POST', '/models/bare/versions/0.1:query', { body: { filter: { where: [{ field: 'payload.items', op: 'in', value: big }] } } });
    expect(filtered.status).toBe(400); // past the filter's term budget: a 400, never a store failure
    expect(filtered.json.details).toEqual({ at: 'filter', reason: expect.stringContaining('at most 1000 terms'), given: 100_001 });
  });

  test('records: stored and read back whole; a query with 100,000 candidates answers', async () => {
    const records = sut.url('records');
    const stored = await call(records, 'POST', '/records', { body: { id: 'big-records', model: 'm', version: '1', payload: big }, headers: { 'idempotency-key': 'big-records' } });
    expect(stored.status).toBe(200);
    const read = await call(records, 'GET', '/records/big-records');
    expect(read.status).toBe(200);
    expect(read.json.payload).toEqual(big);
    const query = await call(records, 'POST', '/records/query', { body: { filter: { where: [{ field: 'id', op: 'in', value: big.map(String) }] } } });
    expect(query.status).toBe(400); // past the filter's term budget: a 400, never a store failure
    expect(query.json.details).toEqual({ at: 'filter', reason: expect.stringContaining('at most 1000 terms'), given: 100_001 });
  });

  test('indicators and impact: answered in their envelopes', async () => {
    const compute = await call(sut.url('indicators'), 'POST', '/compute', {
      body: { payload: { indicator_specification_id: 'REcycle_Sample_Battery', parameter_assessments: big.map(() => ({})) } },
    });
    expect(compute.status).toBeLessThan(500);
    expectNoLeak(compute);
    const impact = await call(sut.url('impact'), 'POST', '/compute', { body: { lci_datasets: big } });
    expect(impact.status).toBe(422);
  });
});
