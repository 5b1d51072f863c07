import { DomainError } from '../../../../kernel/errors.js';
import { parseRecordFilter } from '../../../../kernel/records/record-filter.js';
import { requestBudget } from '../../../../kernel/request-budget.js';
import { AnswerMemory } from '../../../../kernel/answer-memory.js';
import type { StorePage } from '../../../../subgraphs/models/domain/records/record-page.js';
import { idempotencyScope, requestFingerprint, storableRecord } from '../../../../subgraphs/models/domain/records/record-store.js';
import type { ModelVersion, Principal, RecordQuery, RecordStore } from '../../../../subgraphs/models/domain/records/record-store.js';
import { type Slice, selectVisibleRecords, translateRead } from '../../../../subgraphs/models/store/query-translator.js';
import { DIALECTS, backendsUnderTest, createDatabase, onDatabase, openStoreAt } from './support.js';
import type { TestDatabase } from './support.js';

/**
 * A page read within the payload characters a request may still read (REQUEST_MAX_RESPONSE_BYTES,
 * kernel/request-budget.ts; query-translator.ts withinPayloads): the database measures the
 * payloads first, so a page past what is left is refused without any payload leaving it (a
 * hostile page of large payloads costs the process nothing), and a page that fits comes whole even
 * when its look-ahead row (whether more follow) would not have fitted.
 */
const backends = await backendsUnderTest();

const alice: Principal = { subject: 'alice', tenant: 'acme' };
const big: ModelVersion = { model: 'big', version: '1' };
const RECORDS = 30;
const payloadOf = (n: number) => ({ n, blob: 'x'.repeat(50_000) });
/** About the characters of one stored payload (all are as long: `n` has two digits; PostgreSQL's text adds a few spaces). */
const PAYLOAD_CHARS = storableRecord({ id: 'r10', ...big, payload: payloadOf(10) }).payloadJson.length;
/** Room for 19 payloads, not 20, on either backend. */
const BYTES = Math.floor(19.5 * PAYLOAD_CHARS);

describe.each(backends)('a page within the payloads a request may still read, on %s', (backend) => {
  let database: TestDatabase;
  let store: RecordStore;
  const query: RecordQuery = { ...parseRecordFilter({ where: [], sort: [] }), within: big };
  const budget = () => requestBudget({ maxResponseBytes: BYTES, maxRecordsRead: 0, maxDurationMs: 0 });
  const page = (request: Partial<StorePage>, within = budget()) => store.pageRecords(query, alice, { size: 25, backwards: false, after: null, before: null, keysOnly: false, ...request }, within);
  /** What the database sends for the store's statement of that slice. */
  const sent = async (slice: Partial<Slice>) => {
    const { search } = translateRead(DIALECTS[backend], query, alice, { limit: 26, offset: 0, backwards: false, after: null, before: null, payloadsLeft: BYTES, ...slice }, true);
    return onDatabase(backend, database.url, search.sql, search.values);
  };
  /** The length of a payload as the database sends it, in a page that fits. */
  const sentPayloadChars = async () => ((await sent({ limit: 2 }))[0]!.payload as string).length;

  beforeAll(async () => {
    database = await createDatabase(backend);
    store = await openStoreAt(database.url);
    for (let n = 10; n < 10 + RECORDS; n++) {
      const record = storableRecord({ id: `r${n}`, ...big, payload: payloadOf(n) });
      const fingerprint = requestFingerprint(big.model, big.version, record.payloadJson);
      await store.createRecord({ record, owner: alice, idempotency: { scope: idempotencyScope(alice), key: `r${n}`, fingerprint } });
    }
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  test('a page whose payloads reach past what is left is RESPONSE_TOO_LARGE, and the database sends none of them, only their lengths', async () => {
    const refused = await page({ size: 25 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'RESPONSE_TOO_LARGE', details: { limit: BYTES, measure: 'bytes' } });
    const rows = await sent({ limit: 26 });
    expect(rows).toHaveLength(26);
    const chars = await sentPayloadChars();
    for (const row of rows) expect(row).toMatchObject({ payload: null, payload_chars: chars });
  });

  test('a page whose own payloads fit comes whole, though its look-ahead row would reach past; the look-ahead comes without its payload', async () => {
    const forwards = await page({ size: 19 });
    expect(forwards.records.map(({ payload }) => payload)).toEqual(Array.from({ length: 19 }, (_, i) => payloadOf(10 + i)));
    expect(forwards.hasNextPage).toBe(true);
    const backwards = await page({ size: 19, backwards: true });
    expect(backwards.records.map(({ id }) => id)).toEqual(Array.from({ length: 19 }, (_, i) => `r${21 + i}`));
    expect(backwards.hasPreviousPage).toBe(true);
    const rows = await sent({ limit: 20 });
    expect(rows.slice(0, 19).every((row) => typeof row.payload === 'string')).toBe(true);
    expect(rows[19]).toMatchObject({ id: 'r29', payload: null, payload_chars: (rows[0]!.payload as string).length });
  });

  test('a batch of ids (federation entity lookups) is held to the same bytes: past them refused, none sent; within them whole', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => `r${10 + i}`);
    await expect(store.getRecords(ids, alice, budget())).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE', details: { limit: BYTES, measure: 'bytes' } });
    const { sql, values } = selectVisibleRecords(DIALECTS[backend], ids, alice, BYTES);
    const rows = await onDatabase(backend, database.url, sql, values);
    expect(rows).toHaveLength(25);
    for (const row of rows) expect(row).toMatchObject({ payload: null, payload_chars: expect.any(Number) });
    const fitting = await store.getRecords(ids.slice(0, 19), alice, budget());
    expect(fitting.map((record) => record?.payload)).toEqual(Array.from({ length: 19 }, (_, i) => payloadOf(10 + i)));
  });

  test("one request's pages share what is left: a second page of 10 after a first is refused", async () => {
    const shared = budget();
    const first = await page({ size: 10 }, shared);
    expect(first.records).toHaveLength(10);
    await expect(page({ size: 10, after: first.cursors.at(-1)! }, shared)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  describe("within the process's answer memory (PROCESS_MAX_ANSWER_MB, kernel/answer-memory.ts)", () => {
    const huge: ModelVersion = { model: 'huge', version: '1' };
    const hugePayload = (n: number) => ({ n, blob: 'y'.repeat(400_000) });
    const hugeQuery: RecordQuery = { ...parseRecordFilter({ where: [], sort: [] }), within: huge };
    /** Room for seven of those payloads: a page of five (2 MB, large) fits once, not twice; a read first takes a quarter. */
    const memory = () => new AnswerMemory(2_900_000);
    const within = (shared: AnswerMemory, maxDurationMs = 10_000) => requestBudget({ maxResponseBytes: 32 * 2 ** 20, maxRecordsRead: 0, maxDurationMs }, undefined, shared);
    const hugePage = (budget: ReturnType<typeof within>) => store.pageRecords(hugeQuery, alice, { size: 5, backwards: false, after: null, before: null, keysOnly: false }, budget);

    beforeAll(async () => {
      for (let n = 0; n < 6; n++) {
        const record = storableRecord({ id: `h${n}`, ...huge, payload: hugePayload(n) });
        const fingerprint = requestFingerprint(huge.model, huge.version, record.payloadJson);
        await store.createRecord({ record, owner: alice, idempotency: { scope: idempotencyScope(alice), key: `h${n}`, fingerprint } });
      }
    });

    test('a page larger than what a read takes first comes whole (its size measured, then held); the request holds its payloads until it is answered', async () => {
      const shared = memory();
      const request = within(shared);
      const read = await hugePage(request);
      expect(read.records.map(({ payload }) => payload)).toEqual(Array.from({ length: 5 }, (_, i) => hugePayload(i)));
      expect(shared.inUse).toBeGreaterThanOrEqual(5 * 400_000);
      expect(shared.inUse).toBeLessThan(5 * 400_100);
      request.end();
      expect(shared.inUse).toBe(0);
    });

    test('a large page that does not fit beside what other requests hold waits for them, or is SERVER_BUSY once its wait is over; a small page never waits', async () => {
      const shared = memory();
      const holder = within(shared);
      await hugePage(holder);
      const waiter = within(shared);
      const waiting = hugePage(waiter);
      // Its wait ends at its deadline, before the holder is answered.
      const impatient = within(shared, 1_000);
      await expect(hugePage(impatient)).rejects.toMatchObject({ code: 'SERVER_BUSY', details: { retry_after_seconds: 1 } });
      const small = within(shared);
      expect((await page({ size: 5 }, small)).records).toHaveLength(5);
      holder.end();
      expect((await waiting).records.map(({ id }) => id)).toEqual(['h0', 'h1', 'h2', 'h3', 'h4']);
      for (const budget of [waiter, impatient, small]) budget.end();
      expect(shared.inUse).toBe(0);
    });
  });
});
