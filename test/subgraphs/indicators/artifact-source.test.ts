import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CalculationArtifactSource } from '../../../subgraphs/indicators/adapters/calculation-artifact-source.js';
import { IndicatorService } from '../../../subgraphs/indicators/domain/indicator-service.js';
import { domainError, json, passedReport, refusedUrl, startServer, testConfig } from './http-fixtures.js';
import type { RecordedRequest, Reply, TestServer } from './http-fixtures.js';
import type { CoreValidationPort } from '../../../subgraphs/indicators/domain/indicator-service.js';

/** The configuration's timeout (HTTP_TIMEOUT_SECS's default): only the timeout test shortens it. */
const TIMEOUT_MS = testConfig({}).httpTimeoutSecs * 1000;

function artifact(version: string, weight = 1): Record<string, unknown> {
  return {
    artifact_type: 'calculation',
    model_version: version,
    indicator_configurations: {
      Tiny: { parameters: [{ parameter_ref: 'P1', weight, questions: [{ question_id: 'Q1', weight: 1, answers: [{ answer_id: 'a', score: 5 }] }] }] },
    },
  };
}

/** Serves one document with an ETag and honours If-None-Match, like a static file host. */
function etagHost(document: () => { etag: string; body: string }) {
  return (req: RecordedRequest): Reply => {
    const { etag, body } = document();
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
    return { status: 200, headers: { etag, 'content-type': 'application/json' }, body };
  };
}

class Clock {
  time = 1_000_000;
  now = () => this.time;
}

describe('calculation artifact source', () => {
  let host: TestServer;
  const calculationRequests = () => host.requests.filter((r) => r.url.endsWith('/calculation.json'));

  beforeEach(async () => {
    host = await startServer(() => json(200, artifact('0.0.4')));
  });

  afterEach(async () => {
    await host.close();
  });

  function source(options: { clock?: Clock; timeoutMs?: number; freshnessMs?: number } = {}) {
    return new CalculationArtifactSource({
      template: `${host.url}/models/{version}/`,
      timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
      freshnessMs: options.freshnessMs ?? 60_000,
      now: options.clock?.now,
    });
  }

  test('fetches `{base}/calculation.json` of the version and parses it', async () => {
    const loaded = await source().load('0.0.4');
    expect(host.requests.map((r) => r.url)).toEqual(['/models/0.0.4/calculation.json']);
    expect(loaded.modelVersion).toBe('0.0.4');
    expect([...loaded.indicators.keys()]).toEqual(['Tiny']);
  });

  test('ETag: no request while fresh; after the window a conditional request, 304 reuses the parsed artifact', async () => {
    host.handler = etagHost(() => ({ etag: '"v1"', body: JSON.stringify(artifact('0.0.4')) }));
    const clock = new Clock();
    const artifacts = source({ clock, freshnessMs: 60_000 });
    const first = await artifacts.load('0.0.4');

    clock.time += 59_999;
    expect(await artifacts.load('0.0.4')).toBe(first);
    expect(calculationRequests()).toHaveLength(1);

    clock.time += 1;
    expect(await artifacts.load('0.0.4')).toBe(first);
    expect(calculationRequests()).toHaveLength(2);
    expect(calculationRequests()[0].headers['if-none-match']).toBeUndefined();
    expect(calculationRequests()[1].headers['if-none-match']).toBe('"v1"');

    // the 304 restarted the window
    clock.time += 30_000;
    expect(await artifacts.load('0.0.4')).toBe(first);
    expect(calculationRequests()).toHaveLength(2);
  });

  test('ETag: a changed document (200 on revalidation) replaces the cached artifact', async () => {
    let current = { etag: '"v1"', body: JSON.stringify(artifact('0.0.4', 1)) };
    host.handler = etagHost(() => current);
    const clock = new Clock();
    const artifacts = source({ clock, freshnessMs: 1000 });
    await artifacts.load('0.0.4');
    current = { etag: '"v2"', body: JSON.stringify(artifact('0.0.4', 0.5)) };
    clock.time += 1000;
    const reloaded = await artifacts.load('0.0.4');
    expect(reloaded.indicators.get('Tiny')?.parameters[0].weight).toBe(0.5);
    expect(calculationRequests()).toHaveLength(2);
  });

  test('cached per version, and concurrent loads of one version share one fetch', async () => {
    const artifacts = source();
    await Promise.all([artifacts.load('0.0.4'), artifacts.load('0.0.4'), artifacts.load('0.0.4')]);
    host.handler = () => json(200, artifact('0.0.5'));
    await artifacts.load('0.0.5');
    await artifacts.load('0.0.4');
    expect(host.requests.map((r) => r.url)).toEqual(['/models/0.0.4/calculation.json', '/models/0.0.5/calculation.json']);
  });

  test.each([
    ['404', () => ({ status: 404, body: 'not here' }), 'CALCULATION_ARTIFACT_NOT_FOUND'],
    ['500', () => ({ status: 500, body: 'boom' }), 'CALCULATION_ARTIFACT_ERROR'],
    ['invalid JSON', () => ({ status: 200, body: '{"model_version":' }), 'CALCULATION_ARTIFACT_ERROR'],
  ] as const)('%s → %s, naming the URL but not the body', async (_label, reply, code) => {
    host.handler = reply;
    const error = await domainError(source().load('0.0.4'), code);
    expect(error.details).toMatchObject({ calculation_url: `${host.url}/models/0.0.4/calculation.json` });
    expect(error.message).not.toMatch(/not here|boom/);
  });

  test('a malformed artifact → CALCULATION_ARTIFACT_ERROR naming where', async () => {
    host.handler = () => json(200, { model_version: '0.0.4', indicator_configurations: [] });
    const error = await domainError(source().load('0.0.4'), 'CALCULATION_ARTIFACT_ERROR');
    expect(error.details).toEqual({ path: '$.indicator_configurations', problem: 'expected an object' });
  });

  test('failures are not cached: the next load asks again', async () => {
    host.handler = () => ({ status: 500 });
    const artifacts = source();
    await domainError(artifacts.load('0.0.4'), 'CALCULATION_ARTIFACT_ERROR');
    host.handler = () => json(200, artifact('0.0.4'));
    await expect(artifacts.load('0.0.4')).resolves.toMatchObject({ modelVersion: '0.0.4' });
  });

  test('a host slower than the timeout → CALCULATION_ARTIFACT_ERROR', async () => {
    host.handler = () => ({ ...json(200, artifact('0.0.4')), delayMs: 5000 });
    const error = await domainError(source({ timeoutMs: 200 }).load('0.0.4'), 'CALCULATION_ARTIFACT_ERROR');
    expect(error.message).toMatch(/did not answer within 0.2 s/);
  });

  test('connection refused → CALCULATION_ARTIFACT_ERROR', async () => {
    const artifacts = new CalculationArtifactSource({ template: `${await refusedUrl()}/{version}`, timeoutMs: TIMEOUT_MS, freshnessMs: 0 });
    await domainError(artifacts.load('0.0.4'), 'CALCULATION_ARTIFACT_ERROR');
  });

  test('revalidation failing (500) serves the cached copy, and asks again only after another window', async () => {
    host.handler = etagHost(() => ({ etag: '"v1"', body: JSON.stringify(artifact('0.0.4')) }));
    const clock = new Clock();
    const artifacts = source({ clock, freshnessMs: 1000 });
    const first = await artifacts.load('0.0.4');
    host.handler = () => ({ status: 500 });
    clock.time += 1000;
    expect(await artifacts.load('0.0.4')).toBe(first);
    expect(await artifacts.load('0.0.4')).toBe(first);
    expect(calculationRequests()).toHaveLength(2);
  });

  test('revalidation answering 404 drops the copy: the version is gone', async () => {
    const clock = new Clock();
    const artifacts = source({ clock, freshnessMs: 1000 });
    await artifacts.load('0.0.4');
    host.handler = () => ({ status: 404 });
    clock.time += 1000;
    await domainError(artifacts.load('0.0.4'), 'CALCULATION_ARTIFACT_NOT_FOUND');
  });
});

describe('calculation artifact from a file: URL (the local profile)', () => {
  let root: string;
  let file: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'indicators-artifacts-'));
    mkdirSync(path.join(root, '0.0.4'));
    file = path.join(root, '0.0.4', 'calculation.json');
    writeFileSync(file, JSON.stringify(artifact('0.0.4', 1)));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('reads the file, keeps it while unchanged and rereads it once changed', async () => {
    const clock = new Clock();
    const artifacts = new CalculationArtifactSource({
      template: `${pathToFileURL(root).href}/{version}/`,
      timeoutMs: TIMEOUT_MS,
      freshnessMs: 0,
      now: clock.now,
    });
    const first = await artifacts.load('0.0.4');
    expect(await artifacts.load('0.0.4')).toBe(first);
    writeFileSync(file, JSON.stringify(artifact('0.0.4', 0.25)));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const changed = await artifacts.load('0.0.4');
    expect(changed.indicators.get('Tiny')?.parameters[0].weight).toBe(0.25);
    await domainError(artifacts.load('9.9.9'), 'CALCULATION_ARTIFACT_NOT_FOUND');
  });
});

describe('artifact version check and questionnaire in the service', () => {
  let host: TestServer;
  const core: CoreValidationPort = {
    validationUrl: (version) => `http://core.invalid/${version}:validate`,
    validate: async () => passedReport(),
  };
  beforeAll(async () => {
    host = await startServer((req) => json(200, artifact(req.url.includes('/0.0.4/') ? '0.0.3' : '0.0.5')));
  });
  afterAll(() => host.close());

  function service() {
    const config = testConfig({ artifactBaseUrlTemplate: `${host.url}/{version}` });
    return new IndicatorService(config, core, new CalculationArtifactSource({ template: config.artifactBaseUrlTemplate, timeoutMs: TIMEOUT_MS, freshnessMs: 60_000 }));
  }

  test('an artifact declaring another model_version → CALCULATION_ARTIFACT_VERSION_MISMATCH', async () => {
    const error = await domainError(service().compute({ payload: { indicator_specification_id: 'Tiny' } }), 'CALCULATION_ARTIFACT_VERSION_MISMATCH');
    expect(error.details).toEqual({ requested_version: '0.0.4', artifact_model_version: '0.0.3' });
    await domainError(service().specifications('0.0.4'), 'CALCULATION_ARTIFACT_VERSION_MISMATCH');
  });

  test('specifications(version): indicators → parameters → questions → answers, in artifact order', async () => {
    const [tiny] = await service().specifications('0.0.5');
    expect(tiny).toMatchObject({
      id: 'Tiny',
      indicatorType: null,
      productCategory: null,
      parameters: [{ id: 'P1', name: null, weight: 1, fixedScore: null, questions: [{ id: 'Q1', text: null, weight: 1, answers: [{ id: 'a', text: null, score: 5 }] }] }],
    });
    await domainError(service().specifications('..'), 'CALCULATION_ARTIFACT_NOT_FOUND');
  });
});
