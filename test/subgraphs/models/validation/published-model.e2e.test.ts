import { pathToFileURL } from 'node:url';
import { describeWithSharedData, sharedPath } from '../../../support/shared-data.js';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../../../support/system.js';
import { readFileSync } from 'node:fs';

/**
 * The published re-indicators 0.0.4 artifacts, read in place from ../shared/data, behind the real
 * core facade with `root_class: Assessment`: a well-formed assessment passes all three validators
 * and each broken variant fails at the right JSONPath.
 */
describeWithSharedData('re-indicators-specification/0.0.4')('published 0.0.4 model through :validate', () => {
  let sut: TestSystem;
  const file = (name: string) => pathToFileURL(sharedPath('re-indicators-specification', '0.0.4', name)).href;
  const answers = () => JSON.parse(readFileSync(sharedPath('re-indicators-calculation', 'payload-recycle-battery-0.0.4.json'), 'utf8'));
  const assessment = (): Record<string, any> => ({
    id: 'assessment-1',
    timestamp: '2025-06-01T12:00:00Z',
    model_version: '0.0.4',
    product_info: { product_category: 'Battery', manufacturer: 'ACME' },
    ...answers(),
  });

  beforeAll(async () => {
    const catalog = [{ model: 're-indicators-specification', version: '0.0.4', schema_url: file('schema.json'), shacl_url: file('shacl.ttl'), owl_url: file('model.ttl'), root_class: 'Assessment' }];
    sut = await startTestSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: JSON.stringify(catalog), REGISTRY_ALLOW_FILE_URLS: 'true' });
  });
  afterAll(() => sut?.stop());

  const validate = async (payload: unknown) => {
    const answer = await call(sut.url('core'), 'POST', '/models/re-indicators-specification/versions/0.0.4:validate', { body: { payload } });
    expect(answer.status).toBe(200);
    return answer.json as { passed: boolean; results: Array<{ kind: string; passed: boolean; violations: Array<{ path: string; severity: string }> }> };
  };
  const errorPaths = (report: Awaited<ReturnType<typeof validate>>, kind: string) =>
    report.results
      .find((r) => r.kind === kind)!
      .violations.filter((v) => v.severity === 'Error')
      .map((v) => v.path);

  test('a well-formed assessment passes JSON Schema, SHACL and OWL', async () => {
    const report = await validate(assessment());
    expect(report.results.map((r) => [r.kind, r.passed, r.violations.filter((v) => v.severity === 'Error')])).toEqual([
      ['JsonSchema', true, []],
      ['Shacl', true, []],
      ['Owl', true, []],
    ]);
    expect(report.passed).toBe(true);
  });

  test('missing id fails at $.id', async () => {
    const payload = assessment();
    delete payload.id;
    const report = await validate(payload);
    expect(report.passed).toBe(false);
    expect(errorPaths(report, 'JsonSchema')).toContain('$.id');
    expect(errorPaths(report, 'Shacl')).toContain('$.id');
  });

  test('a timestamp that is not a date-time fails at $.timestamp', async () => {
    const report = await validate({ ...assessment(), timestamp: 'last tuesday' });
    expect(report.passed).toBe(false);
    expect(errorPaths(report, 'JsonSchema')).toContain('$.timestamp');
  });

  test('product_category "Car" fails at $.product_info.product_category', async () => {
    const report = await validate({ ...assessment(), product_info: { product_category: 'Car' } });
    expect(report.passed).toBe(false);
    expect(errorPaths(report, 'JsonSchema')).toContain('$.product_info.product_category');
    expect(errorPaths(report, 'Shacl')).toContain('$.product_info.product_category');
  });

  test('an extra total_score fails at $.total_score (closed shapes)', async () => {
    const report = await validate({ ...assessment(), total_score: 3.2 });
    expect(report.passed).toBe(false);
    expect(errorPaths(report, 'JsonSchema')).toContain('$.total_score');
    expect(errorPaths(report, 'Shacl')).toContain('$.total_score');
  });

  test('a question answer without question_id fails at its path', async () => {
    const payload = assessment();
    delete payload.parameter_assessments[0].question_answers[0].question_id;
    const report = await validate(payload);
    expect(report.passed).toBe(false);
    const path = '$.parameter_assessments[0].question_answers[0].question_id';
    expect(errorPaths(report, 'JsonSchema')).toContain(path);
    expect(errorPaths(report, 'Shacl')).toContain(path);
  });
});
