import { readFileSync } from 'node:fs';
import { ArtifactHost } from '../support/artifact-host.js';
import { describeWithSharedData, sharedPath } from '../support/shared-data.js';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../support/system.js';

/**
 * Issue: each registry refresh blocked the event loop (about 350 ms per version of the published
 * model, parsing Turtle and compiling with ajv, in one synchronous run): nothing else was answered
 * meanwhile. Parsing and compiling now run in a worker thread; the event loop keeps a few short
 * steps (evaluating the validator code, indexing the parsed graphs), with turns in between.
 *
 * Once the host has sent the last artifact byte, what is left of the refresh is compiling. Requests
 * sent one after another from then on are each answered right (the index in place) and none waits
 * more than half as long as the compiling takes: with the compile on the event loop, the first would
 * wait for all of it. Both times stretch alike on a busier or faster machine, so no count of answers
 * within a time is asked for.
 */
const PUBLISHED = 're-indicators-specification/0.0.4';
const FILES = { 'schema.json': 'schema.json', 'shacl.ttl': 'shacl.ttl', 'owl.ttl': 'model.ttl' };
const VERSIONS = ['1.0', '2.0'];

describeWithSharedData(PUBLISHED)('a refresh of a big catalog (two copies of the published 0.0.4)', () => {
  let host: ArtifactHost;
  let sut: TestSystem;
  let core: string;

  beforeAll(async () => {
    host = await new ArtifactHost().start();
    for (const version of VERSIONS) {
      for (const [file, published] of Object.entries(FILES)) host.serve(`/re/${version}/${file}`, readFileSync(sharedPath(PUBLISHED, published), 'utf8'));
    }
    const catalog = VERSIONS.map((version) => ({ model: 're-indicators-specification', version, base_url: `${host.url}/re/${version}/`, root_class: 'Assessment' }));
    host.serve('/catalog.json', JSON.stringify(catalog));
    sut = await startTestSystem({ ...NO_AUTH, REGISTRY_CATALOG_URL: `${host.url}/catalog.json`, REGISTRY_REQUIRE_HTTPS: 'false' });
    core = sut.url('core');
  });
  afterAll(async () => {
    await sut?.stop();
    await host?.stop();
  });

  test('/admin/health and GET /models keep answering while it compiles', async () => {
    const lastBytes = VERSIONS.flatMap((version) => Object.keys(FILES).map((file) => host.served(`/re/${version}/${file}`)));
    let refreshed = false;
    const refreshing = call(core, 'POST', '/admin/registry/refresh').finally(() => (refreshed = true));
    await Promise.all(lastBytes);
    const compileStarted = performance.now();

    // Probes sent one after another, each once the previous one was answered.
    const answeredMeanwhile: Array<{ path: string; status: number; body: unknown; waitedMs: number }> = [];
    for (let i = 0; !refreshed; i++) {
      const path = i % 2 ? '/models' : '/admin/health';
      const sent = performance.now();
      const answer = await call(core, 'GET', path);
      const waitedMs = performance.now() - sent;
      if (!refreshed) answeredMeanwhile.push({ path, status: answer.status, body: path === '/models' ? answer.json : answer.json.status, waitedMs });
    }
    const compileMs = performance.now() - compileStarted;
    expect(answeredMeanwhile.length).toBeGreaterThanOrEqual(2);
    // The index in place answered throughout, and none waited for the compile.
    const listed = { models: VERSIONS.map((version) => ({ id: 're-indicators-specification', version })) };
    for (const answer of answeredMeanwhile) expect(answer).toEqual({ path: answer.path, status: 200, body: answer.path === '/models' ? listed : 'ok', waitedMs: answer.waitedMs });
    expect(Math.max(...answeredMeanwhile.map((answer) => answer.waitedMs))).toBeLessThan(compileMs / 2);

    const report = await refreshing;
    expect(report.status).toBe(200);
    expect(report.json).toEqual({ refreshed_at: expect.any(String), models_found: 2, errors: [] });
  });
});
