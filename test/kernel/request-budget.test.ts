import { jsonBytesPast, rememberJsonBytes, requestBudget } from '../../kernel/request-budget.js';

/** The runtime budget's own rules (kernel/request-budget.ts); what clients see: test/reliability/request-budget.test.ts. */
const limits = { maxResponseBytes: 1000, maxRecordsRead: 10, maxDurationMs: 0 };

test('an answer is measured as its JSON, to within the escapes it does not count', () => {
  const answer = { data: { records: { nodes: Array.from({ length: 20 }, (_, i) => ({ id: `r-${i}`, weight: i / 3, ok: true, note: null, text: 'é'.repeat(100) })) } } };
  const size = Buffer.byteLength(JSON.stringify(answer));
  expect(jsonBytesPast(answer, size * 1.1)).toBe(false);
  expect(jsonBytesPast(answer, size * 0.9)).toBe(true);
});

test('a shared answer counted once (a reused subgraph answer) weighs in each answer that holds it as it would walked', () => {
  const questionnaire = Array.from({ length: 50 }, (_, i) => ({
    id: `q-${i}`,
    weight: i / 7,
    answers: [
      { id: 'yes', score: 1 },
      { id: 'non', score: 0, note: 'ü'.repeat(80) },
    ],
  }));
  const shared = Object.freeze(questionnaire.map((q) => Object.freeze({ ...q })));
  rememberJsonBytes(shared);
  const answer = (questions: unknown) => ({ data: { modelVersion: { version: '0.0.4', questions } } });
  const exact = (value: unknown) => {
    let low = 0;
    let high = 1_000_000;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (jsonBytesPast(value, middle)) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  expect(exact(answer(shared))).toBe(exact(answer(questionnaire)));
});

test('one large string repeated is given up on once past the cap, not walked to the end', () => {
  const content = 'x'.repeat(2_000_000);
  const repeated = Array.from({ length: 100_000 }, () => ({ content }));
  expect(jsonBytesPast(repeated, 32 * 2 ** 20)).toBe(true);
});

test('a charge past a cap throws its code, and every later charge the same breach', () => {
  const budget = requestBudget(limits);
  budget.chargeRecords(10, 100);
  expect(budget.recordsLeft()).toBe(0);
  expect(() => budget.chargeRecords(1, 0)).toThrow(expect.objectContaining({ code: 'TOO_MANY_RECORDS_READ', details: { limit: 10, measure: 'records' } }));
  expect(() => budget.checkDeadline()).toThrow(expect.objectContaining({ code: 'TOO_MANY_RECORDS_READ' }));
  expect(budget.signal?.aborted).toBe(true);
});

test("a caller's header only lowers the budget: what the gateway says is left, never more than the process's own", () => {
  expect(requestBudget(limits, 'ms=5000, records=3').recordsLeft()).toBe(3);
  expect(requestBudget(limits, 'ms=5000, records=300').recordsLeft()).toBe(10);
  expect(requestBudget(limits, 'records=-1, ms=abc').recordsLeft()).toBe(10);
  expect(requestBudget(limits, 'ms=1, records=3').header()).toMatch(/^ms=1, records=3$/);
});

test('work past the deadline is answered DEADLINE_EXCEEDED and told to stop', async () => {
  const budget = requestBudget({ ...limits, maxDurationMs: 20 });
  await expect(budget.within(new Promise(() => undefined))).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED', details: { limit: 20, measure: 'milliseconds' } });
  expect(budget.signal?.aborted).toBe(true);
  budget.end();
});

test('extendDeadline: an operation with its own bound moves the deadline later, never earlier, and a running timer follows', async () => {
  const budget = requestBudget({ ...limits, maxDurationMs: 20 });
  const work = budget.within(new Promise((resolve) => setTimeout(() => resolve('done'), 100)));
  budget.extendDeadline(10);
  expect(budget.extendedMsLeft()).toBeNull();
  budget.extendDeadline(60_000);
  expect(budget.extendedMsLeft()).toBeGreaterThan(59_000);
  await expect(work).resolves.toBe('done');
  budget.end();
});

test('extendDeadline: no deadline (REQUEST_MAX_DURATION_MS=0) stays none', () => {
  const budget = requestBudget({ ...limits, maxDurationMs: 0 });
  budget.extendDeadline(60_000);
  expect(budget.extendedMsLeft()).toBeNull();
  expect(budget.header()).toMatch(/^ms=0,/);
});
