import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { sharedDataAvailable, sharedPath } from '../../support/shared-data.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';
import { expectClose } from './http-fixtures.js';

/**
 * A real deployment's setup (DECISIONS section 5): the catalog and the artifact template point at
 * the published re-indicators 0.0.4 artifacts (read in place from ../shared/data), the catalog entry
 * has no `root_class`, and this process's own core validates. The shared compute request, whose
 * payload is not a whole `Assessment`, is then validated by the core, passes, and is scored as the
 * published reference scores it (vector V01 holds the same payload). Under CI=true absent shared
 * data fails instead of skipping.
 */
const SHARED = ['re-indicators-specification/0.0.4', 're-indicators-calculation/compute-request-recycle-battery.json', 're-indicators-calculation/vectors/V01_fixture_battery.expected_result.json'];
const describeShared = SHARED.every((relative) => sharedDataAvailable(relative)) ? describe : describe.skip;

describeShared('POST /compute against the published 0.0.4 artifacts', () => {
  const published = (name: string) => pathToFileURL(sharedPath('re-indicators-specification', '0.0.4', name)).href;
  const template = `${pathToFileURL(sharedPath('re-indicators-specification')).href}/{version}/`;
  const readShared = (...parts: string[]) => JSON.parse(readFileSync(sharedPath(...parts), 'utf8'));
  const request = () => readShared('re-indicators-calculation', 'compute-request-recycle-battery.json');
  let sut: TestSystem;

  beforeAll(async () => {
    // No root_class: a compute payload is not a whole Assessment.
    const catalog = [{ model: 're-indicators-specification', version: '0.0.4', schema_url: published('schema.json'), shacl_url: published('shacl.ttl'), owl_url: published('model.ttl') }];
    sut = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: JSON.stringify(catalog), REGISTRY_ALLOW_FILE_URLS: 'true', ARTIFACT_BASE_URL_TEMPLATE: template });
  }, 120_000);
  afterAll(() => sut?.stop());

  test('the shared compute request answers 200, validated_by_core and passed', async () => {
    const body = request();
    const answer = await call(sut.url('indicators'), 'POST', '/compute', { body });
    expect(answer.status).toBe(200);
    expect(answer.json.model_version).toBe('0.0.4');
    expect(answer.json.artifacts.calculation_url).toBe(published('calculation.json'));
    expect(answer.json.validation).toEqual({
      basis: 'shacl',
      source: 'hex-core-service',
      validation_url: `${sut.url('core')}/models/re-indicators-specification/versions/0.0.4:validate`,
      status: 'validated_by_core',
      passed: true,
      finding_count: expect.any(Number),
      findings_present: expect.any(Boolean),
      raw_report: {
        passed: true,
        results: [expect.objectContaining({ kind: 'JsonSchema', passed: true }), expect.objectContaining({ kind: 'Shacl', passed: true }), expect.objectContaining({ kind: 'Owl', passed: true })],
      },
      details: expect.any(Array),
    });
    expect(answer.json.payload).toEqual(body.payload);
    // The same payload as vector V01: the result the published reference computes, to 1e-12.
    expect(readShared('re-indicators-calculation', 'vectors', 'V01_fixture_battery.payload.json')).toEqual(body.payload);
    expectClose(answer.json.result, readShared('re-indicators-calculation', 'vectors', 'V01_fixture_battery.expected_result.json'));
  });
});
