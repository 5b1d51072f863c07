import { ArtifactHost } from '../../support/artifact-host.js';
import { miniArtifact, miniModelHost, VALID_WIDGET } from '../../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';

/**
 * The registry's life as a client of the core facade sees it: a catalog that is down at start-up,
 * a catalog that changes between refreshes, and the fetch policy (REGISTRY_ALLOWED_HOSTS,
 * REGISTRY_REQUIRE_HTTPS) applied by the running system. Every host is a real HTTP server.
 */

const ENVELOPE = { code: expect.any(String), message: expect.any(String), details: expect.anything() };

/** Requests the host received, all paths together. */
const totalHits = (host: ArtifactHost) => [...host.hits.values()].reduce((sum, n) => sum + n, 0);

describe('a catalog that cannot be loaded at start-up', () => {
  let host: ArtifactHost;
  let sut: TestSystem;
  let core: string;
  let goodCatalog: string;

  beforeAll(async () => {
    const mini = await miniModelHost();
    host = mini.host;
    goodCatalog = host.files.get('/catalog.json')!.body!;
    host.serve('/catalog.json', { status: 500, body: 'catalog host stack trace: secret' });
    sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env });
    core = sut.url('core');
  });
  afterAll(async () => {
    await sut?.stop();
    await host?.stop();
  });

  test('the process starts and serves, with an empty registry', async () => {
    expect(host.hits.get('/catalog.json')).toBe(1);
    const health = await call(core, 'GET', '/admin/health');
    expect(health.status).toBe(200);
    expect(health.json.status).toBe('ok');
    expect((await call(core, 'GET', '/models')).json).toEqual({ models: [] });
    expect((await call(core, 'GET', '/admin/models/count')).json).toEqual({ models_count: 0 });
  });

  test('/admin/ready is 503 not_ready with a reason naming the registry', async () => {
    const answer = await call(core, 'GET', '/admin/ready');
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({ status: 'not_ready', reasons: expect.any(Array) });
    expect(answer.json.reasons.length).toBeGreaterThan(0);
    expect(answer.json.reasons.some((reason: string) => /registry/i.test(reason))).toBe(true);
  });

  test('a refresh while the catalog host still fails is 502 REGISTRY_ERROR, without the upstream body', async () => {
    const answer = await call(core, 'POST', '/admin/registry/refresh');
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({ ...ENVELOPE, code: 'REGISTRY_ERROR', details: null });
    expect(answer.json.message).toContain('HTTP 500');
    expect(answer.text).not.toContain('secret');
    expect((await call(core, 'GET', '/admin/ready')).status).toBe(503);
  });

  test('once the catalog host is fixed, POST /admin/registry/refresh recovers without a restart', async () => {
    host.serve('/catalog.json', goodCatalog);
    const refresh = await call(core, 'POST', '/admin/registry/refresh');
    expect(refresh.status).toBe(200);
    expect(refresh.json).toEqual({ refreshed_at: expect.any(String), models_found: 1, errors: [] });
    expect(new Date(refresh.json.refreshed_at).toISOString()).toBe(refresh.json.refreshed_at);

    const ready = await call(core, 'GET', '/admin/ready');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', models_available: 1, store: 'ok' });
    expect((await call(core, 'GET', '/models')).json).toEqual({ models: [{ id: 'mini', version: '1.0' }] });
    const validated = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } });
    expect(validated.status).toBe(200);
    expect(validated.json.passed).toBe(true);
    const status = await call(core, 'GET', '/admin/status');
    expect(status.json.registry).toEqual({ models_loaded: 1, last_refresh_at: refresh.json.refreshed_at, catalog_revision: expect.stringMatching(/^[0-9a-f]{16}$/), errors: [] });
  });
});

describe('a refresh picks up a changed catalog', () => {
  let host: ArtifactHost;
  let sut: TestSystem;
  let core: string;
  let mini: unknown[];

  beforeAll(async () => {
    const hosted = await miniModelHost();
    host = hosted.host;
    mini = hosted.catalog;
    for (const file of ['schema.json', 'shacl.ttl', 'owl.ttl'] as const) host.serve(`/gadget/2.0/${file}`, miniArtifact(file));
    sut = await startInProcessSystem({ ...NO_AUTH, ...hosted.env });
    core = sut.url('core');
  });
  afterAll(async () => {
    await sut?.stop();
    await host?.stop();
  });

  const setCatalog = (entries: unknown[]) => host.serve('/catalog.json', JSON.stringify(entries));
  const gadget = () => ({ model: 'gadget', version: '2.0', base_url: `${host.url}/gadget/2.0/`, root_class: 'Widget' });

  test('a model added to the catalog appears in GET /models after a refresh, not before', async () => {
    setCatalog([...mini, gadget()]);
    expect((await call(core, 'GET', '/models')).json).toEqual({ models: [{ id: 'mini', version: '1.0' }] });
    expect((await call(core, 'GET', '/models/gadget/versions/2.0/schema')).status).toBe(404);

    const refresh = await call(core, 'POST', '/admin/registry/refresh');
    expect(refresh.status).toBe(200);
    expect(refresh.json).toEqual({ refreshed_at: expect.any(String), models_found: 2, errors: [] });
    expect((await call(core, 'GET', '/models')).json).toEqual({
      models: [
        { id: 'gadget', version: '2.0' },
        { id: 'mini', version: '1.0' },
      ],
    });
    expect((await call(core, 'GET', '/admin/models/count')).json).toEqual({ models_count: 2 });
    const schema = await call(core, 'GET', '/models/gadget/versions/2.0/schema');
    expect(schema.status).toBe(200);
    expect(schema.text).toBe(miniArtifact('schema.json'));
    const validated = await call(core, 'POST', '/models/gadget/versions/2.0:validate', { body: { payload: VALID_WIDGET } });
    expect(validated.json.passed).toBe(true);
  });

  test('a model removed from the catalog disappears after a refresh and its endpoints answer 404 MODEL_NOT_FOUND', async () => {
    setCatalog([gadget()]);
    const refresh = await call(core, 'POST', '/admin/registry/refresh');
    expect(refresh.status).toBe(200);
    expect(refresh.json.models_found).toBe(1);
    expect((await call(core, 'GET', '/models')).json).toEqual({ models: [{ id: 'gadget', version: '2.0' }] });
    expect((await call(core, 'GET', '/admin/models/count')).json).toEqual({ models_count: 1 });

    for (const [method, path, options] of [
      ['POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } }],
      ['POST', '/models/mini/versions/1.0:create', { body: { payload: VALID_WIDGET }, headers: { 'idempotency-key': 'removed-1' } }],
      ['POST', '/models/mini/versions/1.0:query', { body: { filter: {} } }],
      ['GET', '/models/mini/versions/1.0/schema', {}],
      ['GET', '/models/mini/versions/1.0/shacl', {}],
      ['GET', '/models/mini/versions/1.0/owl', {}],
    ] as const) {
      const answer = await call(core, method, path, options);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.json).toEqual({ code: 'MODEL_NOT_FOUND', message: expect.any(String), details: { model: 'mini', version: '1.0' } });
    }
    // The remaining model is untouched.
    expect((await call(core, 'POST', '/models/gadget/versions/2.0:validate', { body: { payload: VALID_WIDGET } })).json.passed).toBe(true);
  });
});

describe('the fetch policy, applied by the running system', () => {
  let allowed: ArtifactHost;
  let forbidden: ArtifactHost;
  let allowedEnv: Record<string, string>;

  beforeAll(async () => {
    const mini = await miniModelHost();
    allowed = mini.host;
    allowedEnv = mini.env; // REGISTRY_ALLOWED_HOSTS = the allowed host's host:port only
    forbidden = await new ArtifactHost().start();
    // The forbidden host would serve everything perfectly well: only the policy stops the registry.
    for (const file of ['schema.json', 'shacl.ttl', 'owl.ttl'] as const) forbidden.serve(`/mini/1.0/${file}`, miniArtifact(file));
    forbidden.serve('/catalog.json', JSON.stringify([{ model: 'mini', version: '1.0', base_url: `${forbidden.url}/mini/1.0/`, root_class: 'Widget' }]));
  });
  afterAll(async () => {
    await allowed?.stop();
    await forbidden?.stop();
  });

  test('the two hosts differ only by port, and only the allowed one is listed', () => {
    expect(new URL(allowed.url).hostname).toBe(new URL(forbidden.url).hostname);
    expect(allowedEnv.REGISTRY_ALLOWED_HOSTS).toBe(new URL(allowed.url).host);
  });

  test('a catalog URL on a host outside REGISTRY_ALLOWED_HOSTS is refused: nothing loaded, nothing fetched from it', async () => {
    const sut = await startInProcessSystem({ ...NO_AUTH, ...allowedEnv, REGISTRY_CATALOG_URL: `${forbidden.url}/catalog.json` });
    try {
      const core = sut.url('core');
      expect((await call(core, 'GET', '/models')).json).toEqual({ models: [] });
      expect((await call(core, 'GET', '/admin/ready')).status).toBe(503);
      const refresh = await call(core, 'POST', '/admin/registry/refresh');
      expect(refresh.status).toBe(502);
      expect(refresh.json).toEqual({ ...ENVELOPE, code: 'REGISTRY_ERROR', details: null });
      expect(refresh.json.message).toMatch(/host not allowed/);
      expect(refresh.json.message).toContain(new URL(forbidden.url).host);
      expect((await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } })).json.code).toBe('MODEL_NOT_FOUND');
    } finally {
      await sut.stop();
    }
    expect(totalHits(forbidden)).toBe(0);
  });

  test('artifact URLs on a forbidden host, directly or by a redirect from an allowed one, are refused and reported', async () => {
    allowed.serve('/bounce/shacl.ttl', { redirect: `${forbidden.url}/mini/1.0/shacl.ttl` });
    allowed.serve(
      '/catalog.json',
      JSON.stringify([
        { model: 'elsewhere', version: '1.0', base_url: `${forbidden.url}/mini/1.0/`, root_class: 'Widget' },
        { model: 'bounced', version: '1.0', schema_url: `${allowed.url}/mini/1.0/schema.json`, shacl_url: `${allowed.url}/bounce/shacl.ttl` },
      ]),
    );
    const sut = await startInProcessSystem({ ...NO_AUTH, ...allowedEnv });
    try {
      const core = sut.url('core');
      const refresh = await call(core, 'POST', '/admin/registry/refresh');
      expect(refresh.status).toBe(200);
      expect(refresh.json.models_found).toBe(2);
      const refused = (model: string, artifact: string) => ({ model, version: '1.0', artifact, message: expect.stringMatching(/host not allowed/) });
      expect(refresh.json.errors).toEqual(expect.arrayContaining([refused('elsewhere', 'schema'), refused('elsewhere', 'shacl'), refused('elsewhere', 'owl'), refused('bounced', 'shacl')]));
      expect(refresh.json.errors).toHaveLength(4);

      // Nothing from the forbidden host is served or used for validation.
      const schema = await call(core, 'GET', '/models/elsewhere/versions/1.0/schema');
      expect(schema.status).toBe(502);
      expect(schema.json).toEqual({ code: 'REGISTRY_ERROR', message: expect.stringMatching(/host not allowed/), details: { model: 'elsewhere', version: '1.0', artifact: 'schema' } });
      expect(schema.text).not.toContain('Widget');
      const shacl = await call(core, 'GET', '/models/bounced/versions/1.0/shacl');
      expect(shacl.status).toBe(502);
      expect(shacl.json.code).toBe('REGISTRY_ERROR');
      const validated = await call(core, 'POST', '/models/elsewhere/versions/1.0:validate', { body: { payload: VALID_WIDGET } });
      expect(validated.status).toBe(500);
      expect(validated.json.code).toBe('VALIDATOR_ERROR');
      expect((await call(core, 'GET', '/admin/status')).json.registry.errors).toHaveLength(4);
    } finally {
      await sut.stop();
    }
    expect(allowed.hits.get('/bounce/shacl.ttl')).toBeGreaterThan(0);
    expect(totalHits(forbidden)).toBe(0);
  });

  test('with REGISTRY_REQUIRE_HTTPS unset, an http:// catalog URL is refused (the default is true)', async () => {
    const { REGISTRY_REQUIRE_HTTPS: _off, ...env } = allowedEnv;
    allowed.hits.clear();
    const sut = await startInProcessSystem({ ...NO_AUTH, ...env });
    try {
      const core = sut.url('core');
      expect((await call(core, 'GET', '/models')).json).toEqual({ models: [] });
      const ready = await call(core, 'GET', '/admin/ready');
      expect(ready.status).toBe(503);
      expect(ready.json.status).toBe('not_ready');
      const refresh = await call(core, 'POST', '/admin/registry/refresh');
      expect(refresh.status).toBe(502);
      expect(refresh.json).toEqual({ ...ENVELOPE, code: 'REGISTRY_ERROR', details: null });
      expect(refresh.json.message).toMatch(/HTTPS is required/);
    } finally {
      await sut.stop();
    }
    expect(totalHits(allowed)).toBe(0);
  });
});
