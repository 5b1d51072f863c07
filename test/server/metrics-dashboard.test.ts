import { miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startTestSystem } from '../support/system.js';
import { postgresReachable } from '../subgraphs/models/store/support.js';
import { DASHBOARD, dashboardMetricNames, metricSelectors } from '../support/grafana-dashboard.js';

/**
 * Issue "For the people who run it", thin metrics: `/admin/metrics` has Node's runtime metrics, the
 * database pool, per-route and per-operation latency, the registry's revision and last refresh, and
 * the workers; one scrape shows the whole process (the primary aggregates its workers), and every
 * metric the shipped Grafana dashboard (docs/grafana/dashboard.json) uses is exported (the
 * gateway role's own, by test/server/metrics-roles.test.ts). Issue 38, item 5: the dashboard picks
 * roles and instances, and every panel shows the instances picked, each series named.
 */
const store = (await postgresReachable()) ? 'postgresql' : 'sqlite';
/** What only a gateway in front of remote subgraphs does: fetch them. */
const GATEWAY_ONLY = /^subgraph_fetch/;

let sut: TestSystem;

beforeAll(async () => {
  const mini = await miniModelHost();
  sut = await startTestSystem({ ...NO_AUTH, ...mini.env, METRICS_ENABLED: 'true' }, { store });
  const core = sut.url('core');
  for (let i = 0; i < 10; i++) await callOnNewConnection(core, 'GET', '/models');
  await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } });
  await call(core, 'POST', '/models/mini/versions/1.0:query', { body: { filter: {} } });
});
afterAll(async () => {
  await sut?.stop();
});

test("every scrape, whichever worker it reaches, counts every worker's requests", async () => {
  const scrapes = await Promise.all(Array.from({ length: 4 }, () => callOnNewConnection(sut.url('core'), 'GET', '/admin/metrics').then((answer) => answer.text)));
  const modelsCount = (text: string) => Number(/^http_request_duration_seconds_count\{facade="core",route="\/models",method="GET",status="200"\} (\d+)$/m.exec(text)?.[1]);
  expect(scrapes.map(modelsCount)).toEqual([10, 10, 10, 10]);
  expect(scrapes.map((text) => /^workers_live (\d+)$/m.exec(text)?.[1])).toEqual(Array(4).fill(expect.stringMatching(/^[1-9]\d*$/)));
});

test('every metric the Grafana dashboard uses is exported, but for the gateway role’s fetches', async () => {
  const scrape = await callOnNewConnection(sut.url('core'), 'GET', '/admin/metrics').then((answer) => answer.text);
  const exported = new Set(
    scrape
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.split(/[{ ]/)[0]),
  );
  const used = dashboardMetricNames().filter((name) => !GATEWAY_ONLY.test(name));
  expect(used.length).toBeGreaterThan(15);
  // The database pool's metrics exist on PostgreSQL only (SQLite has no pool); CI always has PostgreSQL.
  const expected = store === 'postgresql' ? used : used.filter((name) => !name.startsWith('store_pool_'));
  expect(expected.filter((name) => !exported.has(name))).toEqual([]);
});

test('the runtime, the registry and the database pool are there', async () => {
  const scrape = await callOnNewConnection(sut.url('core'), 'GET', '/admin/metrics').then((answer) => answer.text);
  expect(scrape).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  expect(scrape).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  expect(scrape).toMatch(/^registry_models 1$/m);
  expect(scrape).toMatch(/^registry_revision_info\{revision="[0-9a-f]{16}"\} 1$/m);
  expect(scrape).toMatch(/^registry_last_refresh_timestamp_seconds \d+/m);
  expect(scrape).toMatch(/^process_role_info\{role="all"\} 1$/m);
  expect(scrape).toMatch(/^supergraph_version_info\{version="[0-9a-f]{16}"\} 1$/m);
  // Its subgraphs run in this process: no fetch to count.
  expect(scrape).not.toMatch(/^# TYPE subgraph_fetch/m);
  if (store === 'postgresql') expect(scrape).toMatch(/^store_pool_acquire_seconds_count [1-9]/m);
});

describe('the Grafana dashboard', () => {
  const variable = (name: string) => DASHBOARD.templating.list.find((candidate) => candidate.name === name);

  test('picks roles, then the instances of the roles picked, several or all of each', () => {
    expect(variable('role')).toEqual(expect.objectContaining({ type: 'query', multi: true, includeAll: true, query: expect.objectContaining({ query: 'label_values(process_role_info, role)' }) }));
    expect(variable('instance')).toEqual(
      expect.objectContaining({ type: 'query', multi: true, includeAll: true, query: expect.objectContaining({ query: 'label_values(process_role_info{role=~"$role"}, instance)' }) }),
    );
  });

  test('every metric every panel reads is filtered by the instances picked', () => {
    const unfiltered = DASHBOARD.panels.flatMap((panel) =>
      panel.targets.flatMap((target) =>
        metricSelectors(target.expr)
          .filter(({ selector }) => !selector.includes('instance=~"$instance"'))
          .map(({ metric }) => `${panel.title}: ${metric}`),
      ),
    );
    expect(unfiltered).toEqual([]);
  });

  test("every panel's queries name their series (a legend format)", () => {
    const unnamed = DASHBOARD.panels.flatMap((panel) => panel.targets.filter((target) => !target.legendFormat?.trim()).map((target) => `${panel.title}: ${target.expr}`));
    expect(unnamed).toEqual([]);
  });
});
