import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { SMALL_PROJECT, breakProject, snapshotDirectory, writeBrightwayProject } from '../../support/brightway-fixture.js';
import { launchChromium } from '../../support/chromium.js';
import { openApiProblems } from '../../support/openapi.js';
import { ArtifactHost } from '../../support/artifact-host.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem, STORES } from '../../support/system.js';

describe.each(STORES)('on %s', (store) => {
  const validRequest = {
    model_versions: { product_system: '0.1.0', lci_dataset: '0.1.0', integrated_lca: '0.1.0' },
    product_system: { name: 'bike' },
  };

  let dir: string;
  let project: string;
  let sut: TestSystem;
  let impact: string;
  let core: ArtifactHost;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'impact-facade-'));
    project = writeBrightwayProject(dir, SMALL_PROJECT);
    // A stand-in core that counts every request: /compute must never call it.
    core = await new ArtifactHost().start();
    sut = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', BACKGROUND_PROJECT_DIR: project, CORE_BASE_URL: core.url }, { store });
    impact = sut.url('impact');
  });
  afterAll(async () => {
    await sut?.stop();
    await core?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('impact facade over the graph', () => {
    test('GET /health reports identity and locations', async () => {
      const answer = await call(impact, 'GET', '/health');
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ status: 'ok', service: expect.any(String), version: expect.any(String), core_base_url: expect.any(String), background_project_dir: project });
    });

    test('GET /capabilities reads the project', async () => {
      const answer = await call(impact, 'GET', '/capabilities');
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ calculation_status: 'not_available', background: { project_name: expect.any(String), method_count: expect.any(Number) } });
      expect(answer.json.engine).toEqual({ data_library_version: expect.any(String), calc_library_version: expect.any(String) });
    });

    test('POST /compute with a valid request is 501 with no side effect: no core call, no write', async () => {
      const before = snapshotDirectory(project);
      const answer = await call(impact, 'POST', '/compute', { body: validRequest });
      expect(answer.status).toBe(501);
      expect(answer.json).toEqual({ detail: { code: 'CALCULATION_NOT_IMPLEMENTED', message: expect.any(String) } });
      expect(snapshotDirectory(project)).toEqual(before);
      expect([...core.hits.values()].reduce((a, b) => a + b, 0)).toBe(0);
    });

    test('GraphQL: impactCapabilities and computeImpact with the same error codes', async () => {
      const gateway = sut.url('gateway');
      const capabilities = await call(gateway, 'POST', '/graphql', {
        body: { query: '{ impactCapabilities { calculationStatus background { projectName databases { name activityCount } methodCount } } }' },
      });
      expect(capabilities.json.data.impactCapabilities).toMatchObject({ calculationStatus: 'not_available', background: { methodCount: 7 } });
      const input = { modelVersions: { productSystem: '0.1.0', lciDataset: '0.1.0', integratedLca: '0.1.0' }, productSystem: {}, lciDatasets: [], assessmentContext: {} };
      const compute = await call(gateway, 'POST', '/graphql', { body: { query: 'mutation($input: ComputeImpactInput!) { computeImpact(input: $input) { integratedLca } }', variables: { input } } });
      expect(compute.json.errors[0].extensions.code).toBe('CALCULATION_NOT_IMPLEMENTED');
      // The input's types are checked by the graph: a missing field is a validation error, not the REST 422.
      const invalid = await call(gateway, 'POST', '/graphql', { body: { query: 'mutation { computeImpact(input: {}) { integratedLca } }' } });
      expect(invalid.json.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
    });

    test('POST /compute without a required field or with malformed JSON is 422 in FastAPI shape', async () => {
      const missing = await call(impact, 'POST', '/compute', { body: { product_system: {} } });
      expect(missing.status).toBe(422);
      expect(missing.json.detail).toEqual([expect.objectContaining({ type: 'missing', loc: ['body', 'model_versions'], msg: 'Field required' })]);
      const malformed = await call(impact, 'POST', '/compute', { body: '{"model_versions": ' });
      expect(malformed.status).toBe(422);
      expect(malformed.json.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', expect.any(Number)] });
    });

    test('unknown paths and methods keep the detail envelope', async () => {
      const unknown = await call(impact, 'GET', '/nope');
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ detail: { code: 'NOT_FOUND', message: expect.any(String) } });
      const wrong = await call(impact, 'PUT', '/compute');
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('POST');
    });

    test('GET /openapi.json is a valid OpenAPI 3.1 document of the five paths', async () => {
      const answer = await call(impact, 'GET', '/openapi.json');
      expect(await openApiProblems(answer.json)).toBe('');
      expect(Object.keys(answer.json.paths).sort()).toEqual(['/capabilities', '/compute', '/docs', '/health', '/openapi.json']);
    });

    test('a project that cannot be opened is 503 BACKGROUND_PROJECT_UNAVAILABLE saying which part', async () => {
      const broken = writeBrightwayProject(dir, { ...SMALL_PROJECT, name: 'broken_project' });
      breakProject(broken, 'malformed-databases-json');
      const other = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', BACKGROUND_PROJECT_DIR: broken }, { store });
      try {
        const answer = await call(other.url('impact'), 'GET', '/capabilities');
        expect(answer.status).toBe(503);
        expect(answer.json).toEqual({ detail: { code: 'BACKGROUND_PROJECT_UNAVAILABLE', message: expect.stringContaining('databases.json') } });
      } finally {
        await other.stop();
      }
    });
  });

  describe('/docs in a real browser', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    }, 660_000);
    afterAll(() => browser?.close());

    test('Swagger UI renders every operation of the served /openapi.json, from local assets only', async () => {
      const spec = (await call(impact, 'GET', '/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
      const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
      const served = Object.entries(spec.paths)
        .flatMap(([path, item]) =>
          Object.keys(item)
            .filter((key) => METHODS.includes(key))
            .map((method) => `${method.toUpperCase()} ${path}`),
        )
        .sort();
      expect(served.length).toBeGreaterThanOrEqual(5);

      const page = await browser.newPage();
      const outside: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(impact)) outside.push(request.url());
      });
      await page.goto(`${impact}/docs`);
      await page.waitForSelector('.opblock', { timeout: 20_000 });
      // Every operation is rendered in one pass once the document has loaded; wait for the expected
      // count without failing here, so that a missing operation shows up in the comparison below.
      // Runs in the page, where `document` is the browser's (this project is compiled without the DOM library).
      await page
        .waitForFunction(
          (count) => (globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }).document.querySelectorAll('.opblock').length >= count,
          served.length,
          { timeout: 10_000 },
        )
        .catch(() => undefined);
      const rendered = await page.$$eval('.opblock', (blocks) =>
        blocks.map((block) => {
          const method = block.querySelector('.opblock-summary-method')?.textContent?.trim().toUpperCase();
          const pathNode = block.querySelector('.opblock-summary-path');
          const path = (pathNode?.getAttribute('data-path') ?? pathNode?.textContent ?? '').replace(/\u200b/g, '').trim();
          return `${method} ${path}`;
        }),
      );
      expect(rendered.sort()).toEqual(served);
      expect(outside.filter((u) => !u.startsWith('data:'))).toEqual([]);
    });
  });
});
