import { ArtifactHost } from '../../support/artifact-host.js';
import { miniArtifact, miniModelHost, VALID_WIDGET } from '../../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem, STORES } from '../../support/system.js';

describe.each(STORES)('on %s', (store) => {
  let host: ArtifactHost;
  let sut: TestSystem;
  let core: string;

  beforeAll(async () => {
    const mini = await miniModelHost();
    host = mini.host;
    // A second version whose SHACL is broken and whose OWL host fails: the version stays listed.
    host.serve('/mini/2.0/schema.json', miniArtifact('schema.json'));
    host.serve('/mini/2.0/shacl.ttl', 'this is @@ not turtle');
    host.serve('/mini/2.0/owl.ttl', { status: 500, body: 'upstream secret stack trace' });
    host.serve('/catalog.json', JSON.stringify([...mini.catalog, { model: 'mini', version: '2.0', base_url: `${host.url}/mini/2.0` }, { model: 'aaa', version: '0.1' }]));
    sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env, METRICS_ENABLED: 'true' }, { store });
    core = sut.url('core');
  });

  afterAll(async () => {
    await sut?.stop();
    await host?.stop();
  });

  const validate = (payload: unknown, version = '1.0') => call(core, 'POST', `/models/mini/versions/${version}:validate`, { body: { payload } });

  describe('models and artifacts', () => {
    test('GET /models lists every version sorted by model id, then version', async () => {
      const answer = await call(core, 'GET', '/models');
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({
        models: [
          { id: 'aaa', version: '0.1' },
          { id: 'mini', version: '1.0' },
          { id: 'mini', version: '2.0' },
        ],
      });
    });

    test('artifacts come back byte for byte with their media type and an ETag; If-None-Match gives 304', async () => {
      const schema = await call(core, 'GET', '/models/mini/versions/1.0/schema');
      expect(schema.status).toBe(200);
      expect(schema.headers.get('content-type')).toBe('application/schema+json; charset=utf-8');
      expect(schema.text).toBe(miniArtifact('schema.json'));
      const shacl = await call(core, 'GET', '/models/mini/versions/1.0/shacl');
      expect(shacl.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
      expect(shacl.text).toBe(miniArtifact('shacl.ttl'));
      const owl = await call(core, 'GET', '/models/mini/versions/1.0/owl');
      expect(owl.text).toBe(miniArtifact('owl.ttl'));
      const etag = schema.headers.get('etag')!;
      expect(etag).toMatch(/^".+"$/);
      const again = await call(core, 'GET', '/models/mini/versions/1.0/schema', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    });

    test('an unknown model version is 404 MODEL_NOT_FOUND on every model endpoint', async () => {
      for (const [method, path] of [
        ['GET', '/models/nope/versions/1.0/schema'],
        ['GET', '/models/mini/versions/9.9/owl'],
        ['POST', '/models/nope/versions/1.0:validate'],
      ] as const) {
        const answer = await call(core, method, path, method === 'POST' ? { body: { payload: {} } } : {});
        expect(answer.status).toBe(404);
        expect(answer.json).toEqual({ code: 'MODEL_NOT_FOUND', message: expect.any(String), details: expect.anything() });
      }
    });

    test('a known version without that artifact is 404 ARTIFACT_NOT_FOUND', async () => {
      const answer = await call(core, 'GET', '/models/aaa/versions/0.1/shacl');
      expect(answer.status).toBe(404);
      expect(answer.json.code).toBe('ARTIFACT_NOT_FOUND');
    });

    test('an artifact whose fetch failed answers 502 REGISTRY_ERROR naming the failure, without the upstream body', async () => {
      const answer = await call(core, 'GET', '/models/mini/versions/2.0/owl');
      expect(answer.status).toBe(502);
      expect(answer.json.code).toBe('REGISTRY_ERROR');
      expect(answer.json.message).toContain('HTTP 500');
      expect(answer.text).not.toContain('secret');
    });

    test('a version with an unparseable artifact still serves what was fetched', async () => {
      const answer = await call(core, 'GET', '/models/mini/versions/2.0/shacl');
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('this is @@ not turtle');
    });
  });

  describe(':validate', () => {
    test('a valid payload passes all three validators, reported in order', async () => {
      const answer = await validate(VALID_WIDGET);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({
        passed: true,
        results: [
          { kind: 'JsonSchema', passed: true, violations: [] },
          { kind: 'Shacl', passed: true, violations: [] },
          { kind: 'Owl', passed: true, violations: [] },
        ],
      });
    });

    test('an invalid payload is 200 with passed:false and violations at JSONPaths', async () => {
      const answer = await validate({ id: 'w-2', weight: -1, made: 'yesterday', colour: 'red' });
      expect(answer.status).toBe(200);
      expect(answer.json.passed).toBe(false);
      const [jsonSchema, shacl] = answer.json.results;
      const paths = jsonSchema.violations.map((v: { path: string }) => v.path);
      expect(paths).toEqual(expect.arrayContaining(['$.name', '$.weight', '$.made', '$.colour']));
      expect(jsonSchema.violations.every((v: { severity: string }) => v.severity === 'Error')).toBe(true);
      expect(shacl.passed).toBe(false);
      expect(shacl.violations.map((v: { path: string }) => v.path)).toEqual(expect.arrayContaining(['$.name', '$.colour']));
    });

    test('a version whose artifact cannot be compiled answers 500 VALIDATOR_ERROR naming it', async () => {
      const answer = await validate(VALID_WIDGET, '2.0');
      expect(answer.status).toBe(500);
      expect(answer.json.code).toBe('VALIDATOR_ERROR');
      expect(answer.json.message).toMatch(/shacl/);
      expect(answer.json.details).toEqual(expect.arrayContaining([expect.objectContaining({ artifact: 'shacl' }), expect.objectContaining({ artifact: 'owl' })]));
    });

    test('a version without artifacts passes every validator', async () => {
      const answer = await call(core, 'POST', '/models/aaa/versions/0.1:validate', { body: { payload: { anything: 1 } } });
      expect(answer.json.passed).toBe(true);
      expect(answer.json.results.map((r: { kind: string }) => r.kind)).toEqual(['JsonSchema', 'Shacl', 'Owl']);
    });
  });

  describe('request errors use the envelope', () => {
    const badRequest = { code: 'BAD_REQUEST', message: expect.any(String), details: expect.anything() };

    test.each([
      ['malformed JSON', '{"payload": '],
      ['a body that is not an object', '[1,2]'],
      ['payload missing', '{}'],
      ['payload not an object', '{"payload": "x"}'],
    ])('%s is 400 BAD_REQUEST', async (_name, body) => {
      const answer = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'BAD_REQUEST' });
      expect(answer.json).toHaveProperty('details');
    });

    test('a version segment without an operation, or with an unknown one, is 400', async () => {
      for (const path of ['/models/mini/versions/1.0', '/models/mini/versions/1.0:frobnicate']) {
        const answer = await call(core, 'POST', path, { body: { payload: {} } });
        expect(answer.status).toBe(400);
        expect(answer.json).toEqual({ ...badRequest, details: null });
      }
    });

    test('a POST without a JSON content type is 415', async () => {
      const answer = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: '{"payload":{}}', headers: { 'content-type': 'text/plain' } });
      expect(answer.status).toBe(415);
      expect(answer.json.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    test('a body above SERVER_REQUEST_MAX_BYTES is 413', async () => {
      const answer = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: { blob: 'x'.repeat(1048576) } } });
      expect(answer.status).toBe(413);
      expect(answer.json.code).toBe('PAYLOAD_TOO_LARGE');
    });

    test('an unknown path is 404 NOT_FOUND and a wrong method 405 with Allow', async () => {
      const unknown = await call(core, 'GET', '/nowhere');
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: null });
      const wrong = await call(core, 'DELETE', '/models');
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('GET');
      expect(wrong.json.code).toBe('METHOD_NOT_ALLOWED');
    });
  });

  describe('admin', () => {
    test('/admin/health answers ok with an uptime', async () => {
      const answer = await call(core, 'GET', '/admin/health');
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ status: 'ok', uptime_seconds: expect.any(Number) });
    });

    test('/admin/version names the service, its version and the OpenAPI document version', async () => {
      const [version, openapi] = await Promise.all([call(core, 'GET', '/admin/version'), call(core, 'GET', '/openapi.json')]);
      expect(version.json).toEqual({ service: 'hex-core-service', service_version: expect.any(String), openapi_version: openapi.json.info.version });
    });

    test('/admin/models/count counts the indexed versions', async () => {
      expect((await call(core, 'GET', '/admin/models/count')).json).toEqual({ models_count: 3 });
    });

    test('/admin/ready is ready with models and a store', async () => {
      const answer = await call(core, 'GET', '/admin/ready');
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ status: 'ready', models_available: 3, store: 'ok' });
    });

    test('/admin/status reports registry, store, auth mode and metrics flag', async () => {
      const answer = await call(core, 'GET', '/admin/status');
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({
        service: 'hex-core-service',
        registry: { models_loaded: 3, last_refresh_at: expect.any(String) },
        store: { backend: store },
        auth: { mode: 'none' },
        metrics_enabled: true,
        validators: { shacl: { unsupported_constraints: 0 } },
      });
      expect(answer.json.registry.errors).toEqual(expect.arrayContaining([expect.objectContaining({ model: 'mini', version: '2.0', artifact: 'shacl' })]));
    });

    test('/admin/metrics serves Prometheus text with request and validation metrics', async () => {
      await validate(VALID_WIDGET);
      const answer = await call(core, 'GET', '/admin/metrics');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('text/plain');
      expect(answer.text).toContain('http_request_duration_seconds_count{facade="core",route="/models/{model}/versions/{version}:validate",method="POST",status="200"}');
      expect(answer.text).toMatch(/validations_total\{kind="Shacl",outcome="passed"\} \d+/);
      expect(answer.text).toContain('registry_models 3');
    });
  });

  describe('registry refresh', () => {
    test('picks up a changed catalog and reports per-artifact errors', async () => {
      const answer = await call(core, 'POST', '/admin/registry/refresh');
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ refreshed_at: expect.any(String), models_found: 3, errors: expect.any(Array) });
      expect(answer.json.errors).toEqual(
        expect.arrayContaining([
          { model: 'mini', version: '2.0', artifact: 'owl', message: expect.stringContaining('HTTP 500') },
          { model: 'mini', version: '2.0', artifact: 'shacl', message: expect.any(String) },
        ]),
      );
    });

    test('a failing catalog answers 502 REGISTRY_ERROR and the previous index stays', async () => {
      const catalog = host.files.get('/catalog.json')!;
      host.serve('/catalog.json', { status: 503, body: 'down' });
      try {
        const answer = await call(core, 'POST', '/admin/registry/refresh');
        expect(answer.status).toBe(502);
        expect(answer.json.code).toBe('REGISTRY_ERROR');
        expect((await call(core, 'GET', '/models')).json.models).toHaveLength(3);
        expect((await validate(VALID_WIDGET)).json.passed).toBe(true);
      } finally {
        host.files.set('/catalog.json', catalog);
      }
    });

    test('concurrent refreshes share one run', async () => {
      const before = host.hits.get('/catalog.json') ?? 0;
      const answers = await Promise.all([1, 2, 3, 4].map(() => call(core, 'POST', '/admin/registry/refresh')));
      expect(new Set(answers.map((a) => a.json.refreshed_at)).size).toBe(1);
      expect((host.hits.get('/catalog.json') ?? 0) - before).toBe(1);
    });
  });
});
