import fc from 'fast-check';
import { type Backend, type TestDatabase, backendsUnderTest, createDatabase } from '../subgraphs/models/store/support.js';
import {
  HOSTILE_SYSTEM_ENV,
  RUNS,
  deeplyNested,
  expectCodeEnvelope,
  expectImpactEnvelope,
  expectNoLeak,
  hostileBodyText,
  hostileJson,
  hostileObject,
  hostileString,
} from '../support/hostile-input.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 8, hostile input: random JSON (and broken JSON) into every facade's body parsing. Whatever
 * comes in, the answer is a 2xx or a documented 4xx in that facade's envelope: never a 5xx, a stack
 * trace, or driver/SQL text. Bodies that get stored are read back exactly as sent.
 *
 * What reaches a store runs on each store; a property about what comes before or beside the store
 * (any body text, refused or parsed before a store sees it: the stored objects are the create and
 * records properties', on each store; a validation; a computation) runs on the first store only: on
 * the second it ran the same code again.
 */
const SAMPLE = '/models/re-indicators-specification/versions/0.0.4';
const CORE_CODES = {
  200: [],
  400: ['BAD_REQUEST', 'MISSING_IDEMPOTENCY_KEY'],
  409: ['IDEMPOTENCY_CONFLICT', 'RECORD_CONFLICT'],
  422: ['VALIDATION_FAILED'],
};
const RECORDS_CODES = { 200: [], 400: ['bad_request'], 404: ['not_found'], 409: ['conflict'], 422: ['unprocessable'] };
const INDICATOR_CODES = {
  200: [],
  400: ['INVALID_REQUEST_BODY'],
  404: ['MODEL_VERSION_NOT_FOUND', 'CALCULATION_ARTIFACT_NOT_FOUND'],
  422: ['VALIDATION_FAILED', 'UNKNOWN_INDICATOR_SPECIFICATION'],
};
/** Idempotency keys: any printable header value (a header cannot carry control characters). */
const idempotencyKey = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);
let unique = 0;
const BACKENDS = await backendsUnderTest();

describe.each<Backend>(BACKENDS)('every facade on %s', (backend) => {
  let database: TestDatabase;
  let sut: TestSystem;
  let url: (listener: string) => string;

  beforeAll(async () => {
    database = await createDatabase(backend);
    sut = await startInProcessSystem({ ...NO_AUTH, ...HOSTILE_SYSTEM_ENV, DATABASE_URL: database.url });
    url = (listener) => sut.url(listener);
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
  });

  const post = (listener: string, path: string, body: string | unknown, headers: Record<string, string> = {}) =>
    call(url(listener), 'POST', path, { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

  /** A test of what no store takes part in: registered on the first store only. */
  const storeless: typeof test = (backend === BACKENDS[0] ? test : () => undefined) as typeof test;

  storeless('any body text: core, records, indicators and impact answer in their envelopes', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBodyText, async (text) => {
        const key = { 'idempotency-key': `text-${++unique}` };
        for (const [answer, codes] of [
          [await post('core', `${SAMPLE}:validate`, text), CORE_CODES],
          [await post('core', '/models/bare/versions/0.1:create', text, key), CORE_CODES],
          [await post('core', '/models/bare/versions/0.1:query', text), CORE_CODES],
          [await post('records', '/records', text, key), RECORDS_CODES],
          [await post('records', '/records/query', text), RECORDS_CODES],
          [await post('indicators', '/compute', text), INDICATOR_CODES],
        ] as const) {
          expectCodeEnvelope(answer, codes);
          expectNoLeak(answer);
        }
        const impact = await post('impact', '/compute', text);
        expectImpactEnvelope(impact);
        expectNoLeak(impact);
      }),
      RUNS,
    );
  });

  // Issue 13, item 5: a decoder would replace the bad bytes and accept a body the client never sent.
  test("a JSON body that is not UTF-8 is 400 in each facade's envelope, never repaired", async () => {
    const bytes = Buffer.concat([Buffer.from('{"payload":{"id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]);
    const send = (listener: string, path: string) =>
      fetch(url(listener) + path, { method: 'POST', body: bytes, headers: { 'content-type': 'application/json', 'idempotency-key': `bytes-${++unique}` } }).then(async (r) => ({
        status: r.status,
        body: await r.json(),
      }));
    for (const [listener, path] of [
      ['core', `${SAMPLE}:validate`],
      ['core', `${SAMPLE}:create`],
      ['core', `${SAMPLE}:query`],
    ]) {
      expect(await send(listener!, path!)).toEqual({ status: 400, body: { code: 'BAD_REQUEST', message: 'request body is not valid UTF-8', details: null } });
    }
    for (const path of ['/records', '/records/query']) {
      expect(await send('records', path)).toEqual({ status: 400, body: { code: 'bad_request', message: 'request body is not valid UTF-8', details: null } });
    }
    const indicators = await send('indicators', '/compute');
    expect(indicators).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST_BODY' } });
    expect(JSON.stringify((indicators.body as { details: unknown }).details)).toContain('not valid UTF-8');
  });

  storeless('core :validate of any payload object: a three-result report', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileObject,
          deeplyNested(70).map((d) => ({ d })),
        ),
        async (payload) => {
          const answer = await post('core', `${SAMPLE}:validate`, { payload });
          expectCodeEnvelope(answer, CORE_CODES);
          expectNoLeak(answer);
          if (answer.status === 200) expect(answer.json.results.map((r: { kind: string }) => r.kind)).toEqual(['JsonSchema', 'Shacl', 'Owl']);
        },
      ),
      RUNS,
    );
  });

  test('core :create of any payload object: stored as sent, replayed with its key, found by id', async () => {
    await fc.assert(
      fc.asyncProperty(hostileObject, idempotencyKey, async (payload, key) => {
        const headers = { 'idempotency-key': `${key}-${++unique}` };
        const created = await post('core', '/models/bare/versions/0.1:create', { payload }, headers);
        expectCodeEnvelope(created, CORE_CODES);
        expectNoLeak(created);
        if (created.status !== 200) return;
        expect(created.json).toEqual({ id: expect.any(String), model: 'bare', version: '0.1', payload: storedForm(payload) });
        const replayed = await post('core', '/models/bare/versions/0.1:create', { payload }, headers);
        expect({ status: replayed.status, replayed: replayed.headers.get('idempotent-replayed'), body: replayed.json }).toEqual({ status: 200, replayed: 'true', body: created.json });
        const found = await post('core', '/models/bare/versions/0.1:query', { filter: { where: [{ field: 'id', op: 'eq', value: created.json.id }] } });
        expect(found.json.records).toEqual([created.json]);
      }),
      RUNS,
    );
  });

  test('records POST /records of any id, names and payload: read back exactly, or a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, hostileString, hostileString, hostileJson, async (id, model, version, payload) => {
        const stored = await post('records', '/records', { id, model, version, payload }, { 'idempotency-key': `records-${++unique}` });
        expectCodeEnvelope(stored, RECORDS_CODES);
        expectNoLeak(stored);
        if (stored.status !== 200) return;
        expect(stored.json).toEqual({ id });
        const read = await call(url('records'), 'GET', `/records/${encodeURIComponent(id)}`);
        if (id.includes('/') || id === '.' || id === '..') return; // not one path segment: that GET is another path
        expect({ status: read.status, body: { ...read.json, payload: undefined } }).toEqual({ status: 200, body: { id, model, version, payload: undefined } });
        expect(read.json.payload).toEqual(storedForm(payload));
      }),
      RUNS,
    );
  });

  test('what a store cannot hold exactly is a 400 naming where, on both backends: never altered, never a 5xx', async () => {
    const cases: Array<[string, string]> = [
      ['{"a":{"__proto__":{"polluted":true}}}', '$.a.__proto__'],
      ['{"__proto__":null}', '$.__proto__'],
      ['{"a":["x\\u0000y"]}', '$.a[0]'],
      ['{"b":"\\ud800"}', '$.b'],
      ['{"k\\u0000":1}', '$["k\\u0000"]'],
    ];
    for (const [payload, at] of cases) {
      const key = { 'idempotency-key': `unstorable-${++unique}` };
      const created = await post('core', '/models/bare/versions/0.1:create', `{"payload":${payload}}`, key);
      expect({ status: created.status, body: created.json }).toEqual({
        status: 400,
        body: { code: 'BAD_REQUEST', message: expect.stringContaining('payload cannot be stored'), details: { field: 'payload', at, reason: expect.any(String) } },
      });
      const stored = await post('records', '/records', `{"id":"unstorable-${unique}","model":"m","version":"1","payload":${payload}}`, key);
      expect({ status: stored.status, code: stored.json.code, at: stored.json.details.at }).toEqual({ status: 400, code: 'bad_request', at });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    for (const bare of ['9007199254740992', '-9223372036854775808']) {
      const stored = await post('records', '/records', `{"id":"bare-${++unique}","model":"m","version":"1","payload":${bare}}`, { 'idempotency-key': `unstorable-${unique}` });
      expect({ status: stored.status, details: stored.json.details }).toEqual({ status: 400, details: { field: 'payload', at: '$', reason: expect.stringContaining('bare whole number') } });
      expect(stored.json.code).toBe('bad_request');
    }
    const nulId = await post('records', '/records', { id: 'a\u0000b', model: 'm', version: '1', payload: 1 }, { 'idempotency-key': `unstorable-${++unique}` });
    expect({ status: nulId.status, field: nulId.json.details.field }).toEqual({ status: 400, field: 'id' });
    expect((await call(url('records'), 'GET', '/records/a%00b')).status).toBe(404);
    const filter = await post('records', '/records/query', { filter: { where: [{ field: 'payload.a', op: 'eq', value: 'x\u0000' }] } });
    expect({ status: filter.status, at: filter.json.details.at }).toEqual({ status: 400, at: 'where[0]' });
  });

  storeless('indicators POST /compute of any request object: a documented answer', async () => {
    const request = fc.record({ model_version: fc.option(hostileString, { nil: undefined }), payload: fc.oneof(hostileObject, hostileJson) }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(fc.oneof(request, hostileObject), async (body) => {
        const answer = await post('indicators', '/compute', body);
        expectCodeEnvelope(answer, INDICATOR_CODES);
        expectNoLeak(answer);
      }),
      RUNS,
    );
  });

  storeless('impact POST /compute of any request object: FastAPI shapes only', async () => {
    const request = fc.record({ model_versions: fc.oneof(hostileObject, hostileJson), product_system: hostileJson, lci_datasets: hostileJson, assessment_context: hostileJson }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(fc.oneof(request, hostileJson), async (body) => {
        const answer = await post('impact', '/compute', body);
        expectImpactEnvelope(answer);
        expectNoLeak(answer);
      }),
      RUNS,
    );
  });
});

/** What JSON makes of a value (`-0` is `0`): the form a stored payload is read back in. */
function storedForm(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
