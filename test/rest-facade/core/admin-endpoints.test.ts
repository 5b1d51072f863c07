import { Agent, request } from 'node:http';
import type { ArtifactHost } from '../../support/artifact-host.js';
import { miniArtifact, miniModelHost, VALID_WIDGET } from '../../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem, startTestSystem } from '../../support/system.js';

/**
 * The core facade's admin documents and error envelopes as a client sees them, on three real
 * systems: METRICS_ENABLED unset, METRICS_ENABLED=false, and METRICS_ENABLED=true together with
 * GRAPHQL_INTROSPECTION=true. The last as `npm run serve` starts it (a scrape shows every worker's
 * counts, gathered by the primary); the other two answer the same in the jest process.
 */
let host: ArtifactHost;
let unset: TestSystem;
let off: TestSystem;
let on: TestSystem;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  // `bare` has no artifact URLs at all, `gone` has a schema URL answering 404 (absent), and
  // `broken` has an OWL host failing with 500 (a fetch failure, not an absence).
  host.serve('/broken/1.0/schema.json', miniArtifact('schema.json'));
  host.serve('/broken/1.0/owl.ttl', { status: 500, body: 'upstream stack trace: secret' });
  host.serve(
    '/catalog.json',
    JSON.stringify([
      ...mini.catalog,
      { model: 'bare', version: '0.1' },
      { model: 'gone', version: '1.0', schema_url: `${host.url}/gone/1.0/schema.json` },
      { model: 'broken', version: '1.0', schema_url: `${host.url}/broken/1.0/schema.json`, owl_url: `${host.url}/broken/1.0/owl.ttl` },
    ]),
  );
  unset = await startInProcessSystem({ ...NO_AUTH, ...mini.env });
  off = await startInProcessSystem({ ...NO_AUTH, ...mini.env, METRICS_ENABLED: 'false' });
  on = await startTestSystem({ ...NO_AUTH, ...mini.env, METRICS_ENABLED: 'true', GRAPHQL_INTROSPECTION: 'true' });
});

afterAll(async () => {
  await unset?.stop();
  await off?.stop();
  await on?.stop();
  await host?.stop();
});

describe('/admin/metrics', () => {
  test.each([
    ['unset', () => unset],
    ['false', () => off],
  ])('METRICS_ENABLED %s: 404 with the envelope, code NOT_FOUND', async (_name, sut) => {
    const answer = await call(sut().url('core'), 'GET', '/admin/metrics');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: null });
    expect(answer.json.message).toMatch(/METRICS_ENABLED/);
    expect(answer.text).not.toMatch(/http_request_duration_seconds|registry_models/);
  });

  test('METRICS_ENABLED unset or false is reported as such by /admin/status', async () => {
    for (const sut of [unset, off]) {
      const status = await call(sut.url('core'), 'GET', '/admin/status');
      expect(status.status).toBe(200);
      expect(status.json.metrics_enabled).toBe(false);
    }
  });

  test('METRICS_ENABLED=true: Prometheus text 0.0.4 carrying every metric DECISIONS names', async () => {
    const core = on.url('core');
    // One validation and one idempotent replay, so that every family has a sample.
    expect((await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } })).status).toBe(200);
    const create = () => call(core, 'POST', '/models/mini/versions/1.0:create', { body: { payload: VALID_WIDGET }, headers: { 'idempotency-key': 'metrics-1' } });
    expect((await create()).status).toBe(200);
    const replay = await create();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const answer = await call(core, 'GET', '/admin/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4(; ?charset=utf-8)?$/i);
    const text = answer.text;
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="[^"]+",facade="core",route="\/models\/\{model\}\/versions\/\{version\}:validate",method="POST",status="200"\} \d+$/m);
    expect(text).toContain('http_request_duration_seconds_count{facade="core",route="/models/{model}/versions/{version}:create",method="POST",status="200"} 2');
    expect(text).toContain('# TYPE validations_total counter');
    for (const kind of ['JsonSchema', 'Shacl', 'Owl']) expect(text).toMatch(new RegExp(`^validations_total\\{kind="${kind}",outcome="passed"\\} [1-9]\\d*$`, 'm'));
    expect(text).toContain('# TYPE idempotent_replays_total counter');
    expect(text).toMatch(/^idempotent_replays_total 1$/m);
    expect(text).toContain('# TYPE registry_models gauge');
    expect(text).toMatch(/^registry_models 4$/m);
  });
});

// Issue 14: one pipeline for both doors, so /graphql is measured like the REST routes, and every
// operation (a REST route's too) by its name.
test('METRICS_ENABLED=true: /graphql requests and every operation by name are measured too', async () => {
  const graphql = (query: string) => call(on.url('gateway'), 'POST', '/graphql', { body: { query } });
  expect((await graphql('query ListModels { modelVersions { model } }')).status).toBe(200);
  expect((await graphql('{ modelVersions { model } }')).status).toBe(200);
  expect((await call(on.url('core'), 'GET', '/models')).status).toBe(200);
  // Operation names are the clients' own: past 500 of them in one process, the label is `other`.
  // Sent on one keep-alive connection, so that one worker sees them all.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < 510; i++) await postOn(agent, `${on.url('gateway')}/graphql`, { query: `query Name${i} { modelVersionCount }` });
  } finally {
    agent.destroy();
  }
  const text = (await call(on.url('core'), 'GET', '/admin/metrics')).text;
  expect(text).toContain('# TYPE graphql_operation_duration_seconds histogram');
  expect(text).toContain('graphql_operation_duration_seconds_count{operation="ListModels",outcome="ok"} 1');
  expect(text).toContain('graphql_operation_duration_seconds_count{operation="anonymous",outcome="ok"} 1');
  expect(text).toContain('graphql_operation_duration_seconds_count{operation="CoreModels",outcome="ok"} 1');
  expect(text).toMatch(/^graphql_operation_duration_seconds_count\{operation="other",outcome="ok"\} \d+$/m);
  expect(text).toMatch(/^http_request_duration_seconds_count\{facade="graphql",route="\/graphql",method="POST",status="200"\} \d+$/m);
  // The cap is per worker: the other worker may hold ListModels and CoreModels besides, so only the
  // flood's own names, all seen by one worker, are counted against it.
  const labels = [...text.matchAll(/graphql_operation_duration_seconds_count\{operation="([^"]+)"/g)].map((m) => m[1]);
  expect(new Set(labels.filter((label) => /^Name\d+$/.test(label))).size).toBeLessThanOrEqual(500);
});

describe('error envelopes of the core facade', () => {
  test('a known version without that artifact: 404 ARTIFACT_NOT_FOUND with code, message and details', async () => {
    const core = on.url('core');
    for (const [path, model, version, artifact] of [
      ['/models/bare/versions/0.1/shacl', 'bare', '0.1', 'shacl'],
      ['/models/gone/versions/1.0/schema', 'gone', '1.0', 'schema'],
    ] as const) {
      const answer = await call(core, 'GET', path);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.json).toEqual({ code: 'ARTIFACT_NOT_FOUND', message: expect.any(String), details: { model, version, artifact } });
      expect(answer.json.message).toContain(artifact);
    }
  });

  test('an artifact whose fetch failed: 502 REGISTRY_ERROR with code, message naming the failure, and details', async () => {
    const answer = await call(on.url('core'), 'GET', '/models/broken/versions/1.0/owl');
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({ code: 'REGISTRY_ERROR', message: expect.stringContaining('HTTP 500'), details: { model: 'broken', version: '1.0', artifact: 'owl' } });
    expect(answer.text).not.toContain('secret');
    // The same version's schema was fetched and is served.
    const schema = await call(on.url('core'), 'GET', '/models/broken/versions/1.0/schema');
    expect(schema.status).toBe(200);
    expect(schema.text).toBe(miniArtifact('schema.json'));
  });

  test.each([
    ['DELETE', '/models', 'GET'],
    ['PUT', '/admin/registry/refresh', 'POST'],
    ['GET', '/models/mini/versions/1.0:validate', 'POST'],
    ['POST', '/admin/metrics', 'GET'],
    ['PATCH', '/models/mini/versions/1.0/schema', 'GET'],
  ])('%s %s: 405 METHOD_NOT_ALLOWED with Allow: %s and the envelope', async (method, path, allowed) => {
    const answer = await call(on.url('core'), method, path, method === 'GET' ? {} : { body: { payload: {} } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe(allowed);
    expect(answer.json).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.any(String), details: { allowed: [allowed] } });
    expect(answer.json.message).toContain(method);
  });
});

describe('GraphQL introspection at the gateway', () => {
  const introspect = (sut: TestSystem) => call(sut.url('gateway'), 'POST', '/graphql', { body: { query: '{ __schema { queryType { name } } }' } });

  test('GRAPHQL_INTROSPECTION=true answers introspection with data', async () => {
    const answer = await introspect(on);
    expect(answer.status).toBe(200);
    expect(answer.json.errors).toBeUndefined();
    expect(answer.json.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  test('without it the same query is refused and no schema is shown', async () => {
    const answer = await introspect(unset);
    expect(answer.json.data).toBeUndefined();
    expect(answer.json.errors?.[0]?.message).toMatch(/introspection/i);
  });
});

/** A JSON POST through `agent` (its connections kept), answered 200. */
function postOn(agent: Agent, url: string, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
