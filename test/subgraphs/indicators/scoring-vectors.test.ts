import { readdirSync, readFileSync } from 'node:fs';
import { sharedDataAvailable, sharedPath } from '../../support/shared-data.js';
import { domainError, expectClose, json, passedReport, startServer, testConfig } from './http-fixtures.js';
import type { TestServer } from './http-fixtures.js';
import { createIndicatorService } from '../../../subgraphs/indicators/create-indicator-service.js';
import type { IndicatorService } from '../../../subgraphs/indicators/domain/indicator-service.js';

const VECTORS = 're-indicators-calculation/vectors';
const available = sharedDataAvailable('re-indicators-calculation') && sharedDataAvailable('re-indicators-specification/0.0.4');

/**
 * The published reference's vectors, end to end: a mock core that passes everything and an artifact
 * host serving the shared calculation.json 0.0.4 byte for byte.
 */
(available ? describe : describe.skip)('scoring matches the reference vectors (1e-12)', () => {
  let core: TestServer;
  let artifacts: TestServer;
  let service: IndicatorService;

  beforeAll(async () => {
    const calculation = readFileSync(sharedPath('re-indicators-specification', '0.0.4', 'calculation.json'), 'utf8');
    core = await startServer(() => json(200, passedReport()));
    artifacts = await startServer((req) => (req.url === '/0.0.4/calculation.json' ? { status: 200, body: calculation } : { status: 404 }));
    service = createIndicatorService(testConfig({ coreBaseUrl: core.url, artifactBaseUrlTemplate: `${artifacts.url}/{version}/` }));
  });

  afterAll(async () => {
    await core.close();
    await artifacts.close();
  });

  // Collected even when the suite is skipped, so only read the directory when it is there.
  const names = available
    ? readdirSync(sharedPath(VECTORS))
        .filter((file) => file.endsWith('.payload.json'))
        .map((file) => file.replace(/\.payload\.json$/, ''))
    : ['(shared data absent)'];

  test('the vector set is there', () => {
    expect(names.length).toBeGreaterThanOrEqual(7);
  });

  test.each(names)('%s', async (name) => {
    const payload = JSON.parse(readFileSync(sharedPath(VECTORS, `${name}.payload.json`), 'utf8'));
    const expected = JSON.parse(readFileSync(sharedPath(VECTORS, `${name}.expected_result.json`), 'utf8'));
    const computation = service.compute({ payload });
    if ('error' in expected) {
      const error = await domainError(computation, expected.error.code);
      expect(error.message).toBe(expected.error.message);
      expect(error.details).toEqual(expected.error.details);
      return;
    }
    const response = await computation;
    expectClose(response.result, expected);
  });

  test('the shared compute request scores like its vector, with the default version', async () => {
    const request = JSON.parse(readFileSync(sharedPath('re-indicators-calculation', 'compute-request-recycle-battery.json'), 'utf8'));
    const expected = JSON.parse(readFileSync(sharedPath(VECTORS, 'V01_fixture_battery.expected_result.json'), 'utf8'));
    const response = await service.compute(request);
    expect(response.model_version).toBe('0.0.4');
    expectClose(response.result, expected);
  });

  test('the artifact is fetched once for all vectors (cached per version)', () => {
    expect(artifacts.requests.filter((r) => r.url === '/0.0.4/calculation.json')).toHaveLength(1);
  });
});
