import type { ArtifactHost } from '../../support/artifact-host.js';
import { fakeDateOnly, realClock, stepClock } from '../../support/clock.js';
import { miniModelHost } from '../../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../../support/system.js';

/**
 * Issue: any authenticated caller could call POST /admin/registry/refresh one after another, each
 * call costing about a second of work. A refresh asked for within REGISTRY_REFRESH_MIN_INTERVAL_SECS
 * after the last one ended is 429 TOO_MANY_REQUESTS with Retry-After, in the core's envelope; refreshes
 * asked for while one runs still share it. The start-up load is no caller's and starts no interval.
 */
const INTERVAL_SECS = 60;

let host: ArtifactHost;
let sut: TestSystem;
let core: string;

beforeAll(async () => {
  // The interval is stepped over with the clock (Date only); servers and timers run for real.
  fakeDateOnly();
  const mini = await miniModelHost();
  host = mini.host;
  sut = await startTestSystem({ ...NO_AUTH, ...mini.env, REGISTRY_REFRESH_MIN_INTERVAL_SECS: String(INTERVAL_SECS) });
  core = sut.url('core');
});
afterAll(async () => {
  realClock();
  await sut?.stop();
  await host?.stop();
});

const refresh = () => call(core, 'POST', '/admin/registry/refresh');

function expectTooSoon(answer: Awaited<ReturnType<typeof refresh>>): void {
  expect(answer.status).toBe(429);
  expect(answer.json).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.stringContaining('retry in'), details: { retry_after_seconds: expect.any(Number) } });
  const seconds = answer.json.details.retry_after_seconds;
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(INTERVAL_SECS);
  expect(answer.headers.get('retry-after')).toBe(String(seconds));
}

test('the first refresh after start-up runs; the next one within the interval is 429 with Retry-After', async () => {
  const first = await refresh();
  expect(first.status).toBe(200);
  expect(first.json.errors).toEqual([]);
  const catalogHits = host.hits.get('/catalog.json');
  expectTooSoon(await refresh());
  // Refused before any work: the catalog was not fetched again.
  expect(host.hits.get('/catalog.json')).toBe(catalogHits);
});

test('GraphQL callers get the same refusal', async () => {
  const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: 'mutation { refreshRegistry { modelsFound } }' } });
  expect(answer.json.errors).toEqual([
    expect.objectContaining({ extensions: expect.objectContaining({ code: 'TOO_MANY_REQUESTS', details: { retry_after_seconds: expect.any(Number) } }) }),
  ]);
});

test('once the interval has passed, concurrent refreshes share one run, and the next is refused again', async () => {
  stepClock(INTERVAL_SECS * 1000);
  const before = host.hits.get('/catalog.json') ?? 0;
  const answers = await Promise.all([1, 2, 3, 4].map(() => refresh()));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  expect(new Set(answers.map((a) => a.json.refreshed_at)).size).toBe(1);
  expect((host.hits.get('/catalog.json') ?? 0) - before).toBe(1);
  expectTooSoon(await refresh());
});
