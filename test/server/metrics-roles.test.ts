import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { projectPath } from '../../kernel/project.js';
import { JwksServer } from '../support/jwks-server.js';
import { miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { type InProcessSystem, type TestSystem, call, startInProcessSystem, startTestSystem } from '../support/system.js';
import { postgresReachable } from '../subgraphs/models/store/support.js';
import { dashboardMetricNames } from '../support/grafana-dashboard.js';

/**
 * Issue 38, item 5: every role observable. In distributed mode each process serves `/admin/metrics`
 * for what it does (a subgraph port its requests, and the models one its pool and validations; the
 * gateway the supergraph it serves and its fetches to each subgraph, and no registry it does not
 * hold), under the same METRICS_ENABLED and authentication as the core facade's; `/admin/status`
 * through the gateway says the gateway's own settings; its `started` line names its subgraphs and
 * the supergraph's version. One deployment: three subgraph processes and a gateway, as `npm run serve` runs them.
 */
const SECRET = { GATEWAY_SUBGRAPH_SECRET: 'test-gateway-subgraph-secret' };
const SUBGRAPHS = ['models', 'indicators', 'impact'] as const;
const OUTCOMES = ['ok', 'errors', 'timeout', 'unavailable', 'invalid_answer', 'failed'];
const SUPERGRAPH_VERSION = createHash('sha256')
  .update(readFileSync(projectPath('gateway', 'supergraph.graphql'), 'utf8'))
  .digest('hex')
  .slice(0, 16);
const store = (await postgresReachable()) ? 'postgresql' : 'sqlite';

let host: ArtifactHost;
let idp: JwksServer;
let token: string;
const subgraphs: Partial<Record<(typeof SUBGRAPHS)[number], TestSystem>> = {};
let gateway: TestSystem;
/** A second gateway on the same subgraphs with METRICS_ENABLED unset, in this process (it is cheaper to start). */
let quietGateway: InProcessSystem;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  idp = await JwksServer.start();
  token = await idp.sign({ scope: 'records:read' });
  const common = { ...mini.env, ...idp.authEnv(), ...SECRET, PROCESS_ROLE: 'subgraph' };
  await Promise.all([
    startTestSystem({ ...common, SUBGRAPH: 'models', METRICS_ENABLED: 'true' }, { store }).then((sut) => (subgraphs.models = sut)),
    startTestSystem({ ...common, SUBGRAPH: 'indicators', METRICS_ENABLED: 'true' }).then((sut) => (subgraphs.indicators = sut)),
    startTestSystem({ ...common, SUBGRAPH: 'impact', METRICS_ENABLED: 'false' }).then((sut) => (subgraphs.impact = sut)),
  ]);
  const urls = {
    ...SECRET,
    PROCESS_ROLE: 'gateway',
    MODELS_SUBGRAPH_URL: `${subgraphs.models!.url('subgraph:models')}/graphql`,
    INDICATORS_SUBGRAPH_URL: `${subgraphs.indicators!.url('subgraph:indicators')}/graphql`,
    // An operator's careless URL: its credentials must not reach the log.
    IMPACT_SUBGRAPH_URL: `${subgraphs.impact!.url('subgraph:impact').replace('http://', 'http://ops:hunter2secret@')}/graphql`,
  };
  gateway = await startTestSystem({ ...idp.authEnv(), ...urls, METRICS_ENABLED: 'true' });
  quietGateway = await startInProcessSystem({ ...idp.authEnv(), ...urls });

  const auth = { authorization: `Bearer ${token}` };
  const validated = await call(gateway.url('core'), 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET }, headers: auth });
  expect(validated.json.passed).toBe(true);
  expect((await call(gateway.url('gateway'), 'POST', '/graphql', { body: { query: 'query ListVersions { modelVersions { version } }' }, headers: auth })).status).toBe(200);
  expect((await call(gateway.url('core'), 'POST', '/models/mini/versions/1.0:query', { body: { filter: {} }, headers: auth })).status).toBe(200);
  expect((await call(gateway.url('indicators'), 'GET', '/health')).status).toBe(200);
});
afterAll(async () => {
  await quietGateway?.stop();
  await gateway?.stop();
  for (const sut of Object.values(subgraphs)) await sut.stop();
  await idp?.close();
  await host?.stop();
});

const scrape = async (base: string) => {
  const answer = await call(base, 'GET', '/admin/metrics', { headers: { authorization: `Bearer ${token}` } });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return answer.text;
};
const subgraphPort = (name: (typeof SUBGRAPHS)[number]) => subgraphs[name]!.url(`subgraph:${name}`);
/** The metric families a scrape declares (`# TYPE` lines). */
const families = (text: string) => [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!);
/** Every value a label takes in a scrape's samples. */
const labelValues = (text: string, label: string) => new Set([...text.matchAll(new RegExp(`[{,]${label}="([^"]*)"`, 'g'))].map((match) => match[1]!));

test('the gateway: the supergraph it serves, its fetches by subgraph and outcome, its requests; no registry, validation or pool', async () => {
  const text = await scrape(gateway.url('core'));
  expect(text).toMatch(/^process_role_info\{role="gateway"\} 1$/m);
  expect(text).toContain(`supergraph_version_info{version="${SUPERGRAPH_VERSION}"} 1`);
  expect(text).toMatch(/^subgraph_fetches_total\{subgraph="models",outcome="ok"\} [1-9]\d*$/m);
  expect(text).toMatch(/^subgraph_fetch_duration_seconds_count\{subgraph="models",outcome="ok"\} [1-9]\d*$/m);
  expect(text).toMatch(/^subgraph_fetches_total\{subgraph="indicators",outcome="ok"\} [1-9]\d*$/m);
  expect(text).toMatch(/^http_request_duration_seconds_count\{facade="core",route="\/models\/\{model\}\/versions\/\{version\}:validate",method="POST",status="200"\} 1$/m);
  expect(text).toMatch(/^graphql_operation_duration_seconds_count\{operation="ListVersions",outcome="ok"\} 1$/m);
  expect(families(text).filter((name) => /^(registry_|validations_|idempotent_|store_pool_)/.test(name))).toEqual([]);
});

test('a models subgraph port: its requests, validations, registry and database pool; no operations, supergraph or fetches', async () => {
  const text = await scrape(subgraphPort('models'));
  expect(text).toMatch(/^process_role_info\{role="subgraph:models"\} 1$/m);
  expect(text).toMatch(/^http_request_duration_seconds_count\{facade="subgraph:models",route="\/graphql",method="POST",status="200"\} [1-9]\d*$/m);
  for (const kind of ['JsonSchema', 'Shacl', 'Owl']) expect(text).toMatch(new RegExp(`^validations_total\\{kind="${kind}",outcome="passed"\\} 1$`, 'm'));
  expect(text).toMatch(/^registry_models 1$/m);
  if (store === 'postgresql') {
    expect(text).toMatch(/^store_pool_connections\{state="idle"\} \d+$/m);
    expect(text).toMatch(/^store_pool_acquire_seconds_count [1-9]\d*$/m);
  }
  expect(families(text).filter((name) => /^(graphql_operation_|supergraph_|subgraph_fetch|usage_)/.test(name))).toEqual([]);
});

test('an indicators subgraph port: its requests, and nothing of a registry it does not hold', async () => {
  const text = await scrape(subgraphPort('indicators'));
  expect(text).toMatch(/^process_role_info\{role="subgraph:indicators"\} 1$/m);
  expect(text).toMatch(/^http_request_duration_seconds_count\{facade="subgraph:indicators",route="\/graphql",method="POST",status="200"\} [1-9]\d*$/m);
  expect(families(text).filter((name) => /^(registry_|validations_|store_pool_|graphql_operation_)/.test(name))).toEqual([]);
});

describe('a careless or hostile scraper of a subgraph port', () => {
  test('without a token: 401 in the port’s GraphQL envelope, no metric', async () => {
    const answer = await call(subgraphPort('models'), 'GET', '/admin/metrics');
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHORIZED', details: null } }] });
    expect(answer.text).not.toContain('http_request_duration_seconds');
  });

  test('METRICS_ENABLED=false: 404 NOT_FOUND naming the setting, even with a token', async () => {
    const answer = await call(subgraphPort('impact'), 'GET', '/admin/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ errors: [{ message: 'metrics are disabled (METRICS_ENABLED is not true)', extensions: { code: 'NOT_FOUND', details: null } }] });
  });

  test("a client's operation names, paths and headers never become label values", async () => {
    const auth = { authorization: `Bearer ${token}` };
    await call(subgraphPort('models'), 'POST', '/graphql', { body: { query: 'query Sneaky_client_label { modelVersionCount }' }, headers: { ...auth, 'graphql-client-name': 'sneaky-client' } });
    await call(subgraphPort('models'), 'GET', '/admin/metrics/sneaky-path', { headers: auth });
    await call(gateway.url('gateway'), 'POST', '/graphql', { body: { query: 'query Sneaky_gateway_label { modelVersions { version } }' }, headers: { ...auth, 'x-subgraph': 'sneaky' } });
    const subgraph = await scrape(subgraphPort('models'));
    const edge = await scrape(gateway.url('core'));
    expect([...labelValues(subgraph, 'facade')].sort()).toEqual(['admin', 'subgraph:models']);
    expect([...labelValues(subgraph, 'route')].sort()).toEqual(['/admin/metrics', '/graphql']);
    expect(subgraph).not.toMatch(/sneaky/i);
    expect([...labelValues(edge, 'subgraph')].every((name) => (SUBGRAPHS as readonly string[]).includes(name))).toBe(true);
    expect([...labelValues(edge, 'outcome')].every((outcome) => OUTCOMES.includes(outcome))).toBe(true);
  });
});

test('/admin/status through the gateway says the gateway’s own METRICS_ENABLED and auth mode, the registry and store of the models subgraph', async () => {
  const status = (base: string) => call(base, 'GET', '/admin/status', { headers: { authorization: `Bearer ${token}` } }).then((answer) => answer.json);
  expect(await status(gateway.url('core'))).toEqual(
    expect.objectContaining({
      metrics_enabled: true,
      auth: { mode: 'jwt_jwks' },
      registry: expect.objectContaining({ models_loaded: 1 }),
      store: { backend: store === 'postgresql' ? 'postgresql' : 'sqlite' },
    }),
  );
  // The models subgraph serves its metrics; this gateway, METRICS_ENABLED unset, does not.
  expect((await status(quietGateway.url('core'))).metrics_enabled).toBe(false);
  const metrics = await call(quietGateway.url('core'), 'GET', '/admin/metrics', { headers: { authorization: `Bearer ${token}` } });
  expect(metrics.status).toBe(404);
  expect(metrics.json).toEqual({ code: 'NOT_FOUND', message: 'metrics are disabled (METRICS_ENABLED is not true)', details: null });
});

test('the gateway’s started line names its subgraph URLs, without credentials, and the supergraph version its scrape shows', () => {
  const [started] = gateway.logs.filter((line) => line.msg === 'started');
  expect(started).toEqual(
    expect.objectContaining({
      role: 'gateway',
      supergraph: SUPERGRAPH_VERSION,
      subgraphs: {
        models: `${subgraphPort('models')}/graphql`,
        indicators: `${subgraphPort('indicators')}/graphql`,
        impact: `${subgraphPort('impact')}/graphql`,
      },
    }),
  );
  expect(JSON.stringify(gateway.logs)).not.toContain('hunter2secret');
});

test('every metric the Grafana dashboard uses is exported by a role of this deployment', async () => {
  const scrapes = await Promise.all([gateway.url('core'), subgraphPort('models'), subgraphPort('indicators')].map(scrape));
  const exported = new Set(scrapes.flatMap(families).flatMap((family) => [family, `${family}_bucket`, `${family}_sum`, `${family}_count`]));
  const expected = store === 'postgresql' ? dashboardMetricNames() : dashboardMetricNames().filter((name) => !name.startsWith('store_pool_'));
  expect(expected.filter((name) => !exported.has(name))).toEqual([]);
});

// Last: it stops the indicators subgraph.
test('a subgraph that is down: its fetches counted as unavailable', async () => {
  await subgraphs.indicators!.stop();
  delete subgraphs.indicators;
  expect((await call(gateway.url('indicators'), 'GET', '/health')).status).toBe(503);
  expect(await scrape(gateway.url('core'))).toMatch(/^subgraph_fetches_total\{subgraph="indicators",outcome="unavailable"\} [1-9]\d*$/m);
});
