import { eventually } from '../../support/load-loop.js';
import { miniModelHost } from '../../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startTestSystem } from '../../support/system.js';

/**
 * REGISTRY_CATALOG_POLL_SECS: a catalog served over HTTP is asked whether it changed with a
 * conditional GET (If-None-Match, the ETag it last answered); a 304, or the same body again, changes
 * nothing; a new catalog is loaded without anyone asking, and so is one that could not be loaded at
 * start-up once its host answers.
 *
 * One deployment, as `npm run serve` starts it (the primary polls, every worker installs), lives
 * through its catalog's changes in turn, each test where the last left it: unreachable at start-up,
 * then served without an ETag, then a new catalog with one.
 */
const POLL = { REGISTRY_CATALOG_POLL_SECS: '1' };

let mini: Awaited<ReturnType<typeof miniModelHost>>;
let sut: TestSystem;
const status = async () => (await call(sut.url('core'), 'GET', '/admin/status')).json.registry;
// Each worker installs the polled catalog as the primary hands it over: for a moment one may still
// serve the old one, so every worker is asked (one request per new connection).
const everyWorker = async (path: string) => Promise.all(Array.from({ length: 6 }, () => callOnNewConnection(sut.url('core'), 'GET', path)));

/** Resolves after the catalog host has answered `count` more requests for the catalog. */
async function polls(count: number): Promise<void> {
  const target = (mini.host.hits.get('/catalog.json') ?? 0) + count;
  expect(await eventually(() => (mini.host.hits.get('/catalog.json') ?? 0) >= target, { timeoutMs: 30_000 })).toBe(true);
}

beforeAll(async () => {
  mini = await miniModelHost();
  mini.host.serve('/catalog.json', { status: 500, body: 'not now' });
  sut = await startTestSystem({ ...NO_AUTH, ...mini.env, ...POLL });
});

test('a catalog that could not be loaded at start-up is loaded once its host answers, without a refresh asked for', async () => {
  expect((await call(sut.url('core'), 'GET', '/admin/ready')).status).toBe(503);
  mini.host.serve('/catalog.json', JSON.stringify(mini.catalog));
  expect(await eventually(async () => (await call(sut.url('core'), 'GET', '/admin/ready')).status === 200, { timeoutMs: 30_000 })).toBe(true);
});

test('without ETags, the same body again changes nothing', async () => {
  await eventually(async () => (await everyWorker('/admin/ready')).every((answer) => answer.status === 200), { timeoutMs: 30_000 });
  const before = await status();
  await polls(2);
  expect(mini.host.headers.get('/catalog.json')!['if-none-match']).toBeUndefined();
  expect(await status()).toEqual(before);
});

test('a changed catalog is loaded at the next poll, by every worker', async () => {
  const before = await status();
  mini.host.serve('/catalog.json', { body: JSON.stringify([{ ...(mini.catalog[0] as object), label: 'Mini, polled' }]), etag: '"v2"' });
  const polled = await eventually(async () => (await everyWorker('/models')).every((answer) => answer.json.models[0]?.label === 'Mini, polled'), { timeoutMs: 30_000 });
  expect(polled).toBe(true);
  expect((await everyWorker('/models')).map((answer) => answer.json.models)).toEqual(Array(6).fill([{ id: 'mini', version: '1.0', label: 'Mini, polled' }]));
  expect((await status()).catalog_revision).not.toBe(before.catalog_revision);
});

test('a 304 changes nothing', async () => {
  const before = await status();
  await polls(2);
  expect(mini.host.headers.get('/catalog.json')!['if-none-match']).toBe('"v2"');
  expect(await status()).toEqual(before);
});
