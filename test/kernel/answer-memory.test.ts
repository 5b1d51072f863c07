import { AnswerMemory } from '../../kernel/answer-memory.js';
import { requestBudget } from '../../kernel/request-budget.js';

/**
 * PROCESS_MAX_ANSWER_MB's own rules (kernel/answer-memory.ts): bytes are taken in line, first come
 * first served, a wait past its bound is SERVER_BUSY with a Retry-After, and a request gives back
 * everything it took when it is answered. What clients see: test/reliability/concurrent-large-answers.test.ts.
 */
const MB = 2 ** 20;
const limits = { maxResponseBytes: 32 * MB, maxRecordsRead: 0, maxDurationMs: 0 };

test('bytes past the bound wait in line, first come first served, and come in as others give theirs back', async () => {
  const memory = new AnswerMemory(64 * MB);
  expect(memory.tryTake(40 * MB)).toBe(true);
  const order: string[] = [];
  const big = memory.take(30 * MB, 10_000).then(() => order.push('big'));
  // Small enough to fit now, but it came after one that waits: it waits too (no overtaking).
  expect(memory.tryTake(1 * MB)).toBe(false);
  const small = memory.take(1 * MB, 10_000).then(() => order.push('small'));
  memory.give(40 * MB);
  await Promise.all([big, small]);
  expect(order).toEqual(['big', 'small']);
  expect(memory.inUse).toBe(31 * MB);
});

test('a wait past its bound is SERVER_BUSY (503 with Retry-After), and whoever waited behind it comes in if it fits', async () => {
  const memory = new AnswerMemory(64 * MB);
  memory.count(60 * MB);
  const refused = memory.take(32 * MB, 20);
  const behind = memory.take(2 * MB, 10_000);
  await expect(refused).rejects.toMatchObject({ code: 'SERVER_BUSY', details: { retry_after_seconds: 1 } });
  await behind;
  expect(memory.inUse).toBe(62 * MB);
});

test('an answer larger than the whole bound goes through when it is alone, and waits for the process to empty otherwise', async () => {
  const memory = new AnswerMemory(8 * MB);
  expect(memory.tryTake(20 * MB)).toBe(true);
  expect(memory.tryTake(1)).toBe(false);
  memory.give(20 * MB);
  expect(memory.tryTake(20 * MB)).toBe(true);
});

test("a request's reads and answer take from the process's memory and give it all back when it is answered; a refusal is the request's breach", async () => {
  const memory = new AnswerMemory(64 * MB);
  const first = requestBudget(limits, undefined, memory);
  // A read that may bring 35 MB takes a quarter of the bound before it knows its size.
  expect(await first.holdForRead(35 * MB)).toBe(16 * MB);
  first.releaseAnswer(16 * MB);
  await first.holdAnswer(20 * MB);
  // Its answer, measured, holds its bytes at least (counted, never waiting).
  first.chargeAnswer({ data: 'x'.repeat(30 * MB) });
  expect(first.answerBytes).toBeGreaterThan(30 * MB);
  expect(memory.inUse).toBe(first.answerBytes);
  const other = requestBudget(limits, undefined, memory);
  await other.holdAnswer(20 * MB);
  const second = requestBudget({ ...limits, maxDurationMs: 100 }, undefined, memory);
  // A read that finds the share taken reads as a small one, at once: it learns its size, then holds that.
  expect(await second.holdForRead(35 * MB)).toBe(1 * MB);
  // A large hold waits in line, at most until its deadline.
  await expect(second.holdAnswer(34 * MB)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
  expect(second.breach?.code).toBe('SERVER_BUSY');
  // A small one never waits.
  const third = requestBudget(limits, undefined, memory);
  await third.holdAnswer(1 * MB);
  for (const budget of [first, other, second, third]) budget.end();
  expect(memory.inUse).toBe(0);
});

test('without a bound every read holds what it asks for, as it always did', async () => {
  const budget = requestBudget(limits);
  expect(await budget.holdForRead(35 * MB)).toBe(35 * MB);
});
