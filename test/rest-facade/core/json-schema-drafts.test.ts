import { ArtifactHost } from '../../support/artifact-host.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';

/**
 * DECISIONS section 3: "the `$schema` draft is honoured (draft-07, 2019-09, 2020-12)". Two models
 * carry the same schema body and differ only in `$schema`. The body uses `dependencies` (a draft-07
 * keyword) and `dependentRequired` (introduced by 2019-09, where `dependencies` was split in two):
 * under draft-07 `dependentRequired` is an unknown keyword and asserts nothing; under 2019-09 and
 * 2020-12 it is enforced. The same payload therefore passes one model and fails the others, which
 * is only possible when each schema's `$schema` picks the draft.
 */

const body = {
  type: 'object',
  properties: { a: {}, b: {}, c: {}, d: {} },
  // Draft-07: having `c` requires `d`.
  dependencies: { c: ['d'] },
  // 2019-09 and later: having `a` requires `b`; draft-07 ignores this keyword.
  dependentRequired: { a: ['b'] },
};

const DRAFTS = {
  d07: 'http://json-schema.org/draft-07/schema#',
  d2019: 'https://json-schema.org/draft/2019-09/schema',
  d2020: 'https://json-schema.org/draft/2020-12/schema',
} as const;

let host: ArtifactHost;
let sut: TestSystem;
let core: string;

beforeAll(async () => {
  host = await new ArtifactHost().start();
  for (const [model, draft] of Object.entries(DRAFTS)) {
    host.serve(`/${model}/schema.json`, JSON.stringify({ $schema: draft, $id: `https://example.org/${model}/schema.json`, ...body }));
  }
  const catalog = Object.keys(DRAFTS).map((model) => ({ model, version: '1', schema_url: `${host.url}/${model}/schema.json` }));
  sut = await startInProcessSystem({
    ...NO_AUTH,
    REGISTRY_CATALOG_JSON: JSON.stringify(catalog),
    REGISTRY_REQUIRE_HTTPS: 'false',
    REGISTRY_ALLOWED_HOSTS: new URL(host.url).host,
  });
  core = sut.url('core');
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
});

const validate = async (model: keyof typeof DRAFTS, payload: unknown) => {
  const answer = await call(core, 'POST', `/models/${model}/versions/1:validate`, { body: { payload } });
  expect(answer.status).toBe(200);
  return answer.json as { passed: boolean; results: Array<{ kind: string; passed: boolean; violations: Array<Record<string, unknown>> }> };
};

test('every draft loaded without errors', async () => {
  const status = await call(core, 'GET', '/admin/status');
  expect(status.json.registry).toMatchObject({ models_loaded: 3, errors: [] });
});

test('draft-07 (http://json-schema.org/draft-07/schema#) ignores dependentRequired', async () => {
  const report = await validate('d07', { a: 1 });
  expect(report.passed).toBe(true);
  expect(report.results[0]).toEqual({ kind: 'JsonSchema', passed: true, violations: [] });
});

test.each(['d2019', 'd2020'] as const)('%s enforces dependentRequired on the same body and payload', async (model) => {
  const report = await validate(model, { a: 1 });
  expect(report.passed).toBe(false);
  expect(report.results[0]).toEqual({
    kind: 'JsonSchema',
    passed: false,
    violations: [{ path: '$.b', message: expect.any(String), severity: 'Error', constraint: 'dependentRequired' }],
  });
});

test('draft-07 enforces dependencies, reported at the missing property', async () => {
  const report = await validate('d07', { c: 1 });
  expect(report.passed).toBe(false);
  expect(report.results[0]).toEqual({
    kind: 'JsonSchema',
    passed: false,
    violations: [{ path: '$.d', message: expect.any(String), severity: 'Error', constraint: 'dependencies' }],
  });
  expect((await validate('d07', { a: 1, c: 1, d: 1 })).passed).toBe(true);
});
