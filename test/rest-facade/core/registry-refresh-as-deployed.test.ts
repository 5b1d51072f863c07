import type { ArtifactHost } from '../../support/artifact-host.js';
import { miniArtifact, miniModelHost } from '../../support/mini-model.js';
import { NO_AUTH, STORES, type TestSystem, call, callOnNewConnection, startTestSystem } from '../../support/system.js';

/**
 * Issue "The contract holds as deployed": `POST /admin/registry/refresh` against the system as
 * `npm run serve` runs it (a worker per CPU, every default setting), on both stores. Every refresh
 * answers its report, never 429; refreshes asked for while one runs share the next run, whichever
 * worker they reach; once a refresh has answered, every worker serves its result.
 */
const GADGET = { model: 'gadget', version: '2.0' };

describe.each(STORES)('on %s', (store) => {
  let host: ArtifactHost;
  let catalog: unknown[];
  let sut: TestSystem;
  let core: string;

  beforeAll(async () => {
    const mini = await miniModelHost();
    host = mini.host;
    catalog = mini.catalog;
    host.serve(`/gadget/2.0/schema.json`, miniArtifact('schema.json'));
    sut = await startTestSystem({ ...NO_AUTH, ...mini.env }, { store });
    core = sut.url('core');
  });
  afterAll(async () => {
    await sut?.stop();
    await host?.stop();
  });

  const refresh = () => call(core, 'POST', '/admin/registry/refresh');
  const publish = (entries: unknown[]) => host.serve('/catalog.json', JSON.stringify(entries));

  test('refreshes one after another all answer 200 with a report of their own, never 429', async () => {
    const reports = [];
    for (let i = 0; i < 4; i++) {
      const answer = await refresh();
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ refreshed_at: expect.any(String), models_found: 1, errors: [] });
      reports.push(answer.json.refreshed_at);
    }
    expect(new Set(reports).size).toBe(4);
    expect([...reports].sort()).toEqual(reports);
  });

  test("the graph's refreshRegistry one after another: every answer is data, never TOO_MANY_REQUESTS", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: 'mutation { refreshRegistry { modelsFound errors { model } } }' } });
      expect(answer.json).toEqual({ data: { refreshRegistry: { modelsFound: 1, errors: [] } } });
    }
  });

  test('once a refresh that added a version answered, twelve requests on new connections all see it, and every worker reports the same status', async () => {
    publish([...catalog, { ...GADGET, schema_url: `${host.url}/gadget/2.0/schema.json` }]);
    try {
      const answer = await refresh();
      expect(answer.status).toBe(200);
      expect(answer.json.models_found).toBe(2);
      const schemas = await Promise.all(Array.from({ length: 12 }, () => callOnNewConnection(core, 'GET', '/models/gadget/versions/2.0/schema')));
      expect(schemas.map((s) => s.status)).toEqual(Array(12).fill(200));
      const statuses = await Promise.all(Array.from({ length: 12 }, () => callOnNewConnection(core, 'GET', '/admin/status')));
      const registries = statuses.map((s) => s.json.registry);
      expect(new Set(registries.map((r) => r.last_refresh_at))).toEqual(new Set([answer.json.refreshed_at]));
      expect(new Set(registries.map((r) => r.catalog_revision)).size).toBe(1);
      expect(registries.map((r) => r.models_loaded)).toEqual(Array(12).fill(2));
      const graph = await Promise.all(
        Array.from({ length: 12 }, () =>
          call(sut.url('gateway'), 'POST', '/graphql', {
            headers: { connection: 'close' },
            body: { query: 'query($m: String!, $v: String!) { modelVersion(model: $m, version: $v) { version } }', variables: { m: GADGET.model, v: GADGET.version } },
          }),
        ),
      );
      expect(graph.map((g) => g.json)).toEqual(Array(12).fill({ data: { modelVersion: { version: '2.0' } } }));
    } finally {
      publish(catalog);
      await refresh();
    }
  });

  test('refreshes asked for while one runs, on any worker, share the one run after it and its report', async () => {
    host.serve('/catalog.json', { body: JSON.stringify(catalog), delayMs: 1500 });
    try {
      const catalogHits = host.hits.get('/catalog.json') ?? 0;
      const first = refresh();
      await waitFor(() => (host.hits.get('/catalog.json') ?? 0) > catalogHits);
      const joined = await Promise.all(Array.from({ length: 4 }, () => call(core, 'POST', '/admin/registry/refresh', { headers: { connection: 'close' } })));
      const firstAnswer = await first;
      expect([firstAnswer, ...joined].map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(joined.map((a) => a.json.refreshed_at)).size).toBe(1);
      expect(joined[0]!.json.refreshed_at > firstAnswer.json.refreshed_at).toBe(true);
    } finally {
      publish(catalog);
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
