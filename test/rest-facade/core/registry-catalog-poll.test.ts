import { eventually } from '../../support/load-loop.js';
import { miniModelHost } from '../../support/mini-model.js';
import { NO_AUTH, call, startTestSystem } from '../../support/system.js';

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
  const changed = await eventually(async () => (await status()).catalog_revision !== before.catalog_revision, { timeoutMs: 30_000 });
  expect(changed).toBe(true);
  expect((await call(sut.url('core'), 'GET', '/models')).json.models).toEqual([{ id: 'mini', version: '1.0', label: 'Mini, polled' }]);
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
