import { eventually } from '../../support/load-loop.js';
import { miniModelHost } from '../../support/mini-model.js';
import { NO_AUTH, call, callOnNewConnection, startTestSystem } from '../../support/system.js';

/**
 * REGISTRY_CATALOG_POLL_SECS: a catalog served over HTTP is asked whether it changed with a
 * conditional GET (If-None-Match, the ETag it last answered); a 304, or the same body again, changes
 * nothing; a new catalog is loaded without anyone asking, and so is one that could not be loaded at
 * start-up once its host answers.
 */
const POLL = { REGISTRY_CATALOG_POLL_SECS: '1' };

/** Resolves after the catalog host has answered `count` more requests for the catalog. */
async function polls(host: Awaited<ReturnType<typeof miniModelHost>>['host'], count: number): Promise<void> {
  const target = (host.hits.get('/catalog.json') ?? 0) + count;
  expect(await eventually(() => (host.hits.get('/catalog.json') ?? 0) >= target, { timeoutMs: 30_000 })).toBe(true);
}

test('a 304 changes nothing; a changed catalog is loaded at the next poll', async () => {
  const { host, env, catalog } = await miniModelHost();
  host.serve('/catalog.json', { body: JSON.stringify(catalog), etag: '"v1"' });
  const sut = await startTestSystem({ ...NO_AUTH, ...env, ...POLL });
  const status = async () => (await call(sut.url('core'), 'GET', '/admin/status')).json.registry;
  const before = await status();

  await polls(host, 2);
  expect(host.headers.get('/catalog.json')!['if-none-match']).toBe('"v1"');
  expect(await status()).toEqual(before);

  host.serve('/catalog.json', { body: JSON.stringify([{ ...(catalog[0] as object), label: 'Mini, polled' }]), etag: '"v2"' });
  // Each worker installs the polled catalog as the primary hands it over: for a moment one may still
  // serve the old one, so every worker is asked (one request per new connection) until all serve it.
  const everyWorker = async () => Promise.all(Array.from({ length: 6 }, () => callOnNewConnection(sut.url('core'), 'GET', '/models')));
  const polled = await eventually(async () => (await everyWorker()).every((answer) => answer.json.models[0]?.label === 'Mini, polled'), { timeoutMs: 30_000 });
  expect(polled).toBe(true);
  expect((await everyWorker()).map((answer) => answer.json.models)).toEqual(Array(6).fill([{ id: 'mini', version: '1.0', label: 'Mini, polled' }]));
  expect((await status()).catalog_revision).not.toBe(before.catalog_revision);
});

test('without ETags, the same body again changes nothing', async () => {
  const { host, env } = await miniModelHost();
  const sut = await startTestSystem({ ...NO_AUTH, ...env, ...POLL });
  const before = (await call(sut.url('core'), 'GET', '/admin/status')).json.registry;
  await polls(host, 2);
  expect(host.headers.get('/catalog.json')!['if-none-match']).toBeUndefined();
  expect((await call(sut.url('core'), 'GET', '/admin/status')).json.registry).toEqual(before);
});

test('a catalog that could not be loaded at start-up is loaded once its host answers, without a refresh asked for', async () => {
  const { host, env, catalog } = await miniModelHost();
  host.serve('/catalog.json', { status: 500, body: 'not now' });
  const sut = await startTestSystem({ ...NO_AUTH, ...env, ...POLL });
  expect((await call(sut.url('core'), 'GET', '/admin/ready')).status).toBe(503);
  host.serve('/catalog.json', JSON.stringify(catalog));
  expect(await eventually(async () => (await call(sut.url('core'), 'GET', '/admin/ready')).status === 200, { timeoutMs: 30_000 })).toBe(true);
});
