import { domainError, json, passedReport, refusedUrl, startServer, testConfig } from './http-fixtures.js';
import type { TestServer } from './http-fixtures.js';
import { createIndicatorService } from '../../../subgraphs/indicators/create-indicator-service.js';
import type { IndicatorService } from '../../../subgraphs/indicators/domain/indicator-service.js';

const ARTIFACT = {
  artifact_type: 'calculation',
  model_version: '0.0.4',
  indicator_configurations: {
    Tiny: { parameters: [{ parameter_ref: 'P1', weight: 1, questions: [{ question_id: 'Q1', weight: 1, answers: [{ answer_id: 'a', score: 5 }] }] }] },
  },
};

const PAYLOAD = { indicator_specification_id: 'Tiny', parameter_assessments: [{ parameter_id: 'P1', question_answers: [{ question_id: 'Q1', selected_answer_id: 'a' }] }] };
const VALIDATE_PATH = '/models/re-indicators-specification/versions/0.0.4:validate';

describe('delegated validation through the core HTTP contract', () => {
  let core: TestServer;
  let artifacts: TestServer;
  let service: IndicatorService;

  beforeAll(async () => {
    core = await startServer(() => json(200, passedReport()));
    artifacts = await startServer(() => json(200, ARTIFACT));
    service = createIndicatorService(testConfig({ coreBaseUrl: core.url, artifactBaseUrlTemplate: `${artifacts.url}/{version}` }));
  });

  afterAll(async () => {
    await core.close();
    await artifacts.close();
  });

  beforeEach(() => {
    core.requests.length = 0;
    core.handler = () => json(200, passedReport());
  });

  test('passed: the call, the forwarded bearer token and the normalised section', async () => {
    const response = await service.compute({ payload: PAYLOAD }, { authorization: 'Bearer token-123' });
    expect(core.requests).toHaveLength(1);
    const [call] = core.requests;
    expect(call.method).toBe('POST');
    expect(call.url).toBe(VALIDATE_PATH);
    expect(call.headers.authorization).toBe('Bearer token-123');
    expect(call.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call.body)).toEqual({ payload: PAYLOAD });
    expect(response.validation).toEqual({
      basis: 'shacl',
      source: 'hex-core-service',
      validation_url: `${core.url}${VALIDATE_PATH}`,
      status: 'validated_by_core',
      passed: true,
      finding_count: 0,
      findings_present: false,
      raw_report: passedReport(),
      details: expect.arrayContaining([expect.stringContaining('passed')]),
    });
    expect(response.result.total_score).toBe(1);
    expect(response).toMatchObject({
      model_family: 're-indicators-specification',
      model_version: '0.0.4',
      artifact_base_url: `${artifacts.url}/0.0.4/`,
      artifacts: {
        model_version: '0.0.4',
        base_url: `${artifacts.url}/0.0.4/`,
        calculation_url: `${artifacts.url}/0.0.4/calculation.json`,
        shacl_url: `${artifacts.url}/0.0.4/shacl.ttl`,
        schema_url: `${artifacts.url}/0.0.4/schema.json`,
        owl_url: `${artifacts.url}/0.0.4/owl.ttl`,
      },
      payload: PAYLOAD,
    });
  });

  test('without a token no Authorization header is sent; the core gets the payload as received', async () => {
    await service.compute({ payload: { indicator_specification_id: 'Tiny' } });
    expect(core.requests[0].headers.authorization).toBeUndefined();
    expect(JSON.parse(core.requests[0].body)).toEqual({ payload: { indicator_specification_id: 'Tiny' } });
  });

  test('findings of a passing report (warnings) are counted but do not block', async () => {
    const report = {
      passed: true,
      results: [
        { kind: 'JsonSchema', passed: true, violations: [] },
        {
          kind: 'Shacl',
          passed: true,
          violations: [
            { path: '$.a', message: 'w1', severity: 'Warning' },
            { path: '$.b', message: 'i1', severity: 'Info' },
          ],
        },
        { kind: 'Owl', passed: true, violations: [{ path: '$', message: 'w2', severity: 'Warning' }] },
      ],
    };
    core.handler = () => json(200, report);
    const { validation } = await service.compute({ payload: PAYLOAD });
    expect(validation).toMatchObject({ passed: true, finding_count: 3, findings_present: true, raw_report: report });
    expect(validation.details).toContain('Shacl Warning at $.a: w1');
  });

  test('passed:false blocks with 422 VALIDATION_FAILED whose details are the validation section', async () => {
    const report = {
      passed: false,
      results: [
        { kind: 'JsonSchema', passed: false, violations: [{ path: '$.x', message: 'bad', severity: 'Error' }] },
        {
          kind: 'Shacl',
          passed: false,
          violations: [
            { path: '$.y', message: 'closed', severity: 'Error' },
            { path: '$.z', message: 'closed', severity: 'Error' },
          ],
        },
        { kind: 'Owl', passed: true, violations: [] },
      ],
    };
    core.handler = () => json(200, report);
    const error = await domainError(service.compute({ payload: PAYLOAD }), 'VALIDATION_FAILED');
    expect(error.details).toMatchObject({
      status: 'validated_by_core',
      passed: false,
      finding_count: 3,
      findings_present: true,
      raw_report: report,
    });
  });

  test.each([
    [401, 'CORE_UNAUTHORIZED'],
    // DECISIONS section 5: only the caller's rejection is CORE_UNAUTHORIZED; any other status is 502.
    [403, 'CORE_VALIDATION_ERROR'],
    [404, 'MODEL_VERSION_NOT_FOUND'],
    [500, 'CORE_VALIDATION_ERROR'],
    [503, 'CORE_VALIDATION_ERROR'],
    [400, 'CORE_VALIDATION_ERROR'],
    [422, 'CORE_VALIDATION_ERROR'],
  ] as const)('core %i → %s, without the upstream body', async (status, code) => {
    core.handler = () => json(status, { code: 'X', message: 'upstream secret detail' });
    const error = await domainError(service.compute({ payload: PAYLOAD }, { authorization: 'Bearer tok' }), code);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(/upstream secret|tok\b/);
  });

  test('a 200 with malformed JSON → CORE_VALIDATION_ERROR', async () => {
    core.handler = () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"passed": tru' });
    await domainError(service.compute({ payload: PAYLOAD }), 'CORE_VALIDATION_ERROR');
  });

  // DECISIONS section 5: only passed:false blocks.
  test.each([
    ['an object without passed', { results: [{ kind: 'Shacl', passed: true, violations: [{ path: '$', message: 'm', severity: 'Warning' }] }] }, { results: expect.any(Array) }, 1],
    ['a passed that is not a boolean', { passed: 'yes', results: [] }, { passed: 'yes', results: [] }, 0],
    ['not an object at all', ['passed'], null, 0],
  ])('a 200 report with no boolean passed (%s) does not block: computed, passed null', async (_case, report, raw, findings) => {
    core.handler = () => json(200, report);
    const computed = await service.compute({ payload: PAYLOAD });
    expect(computed.validation).toMatchObject({ status: 'validated_by_core', passed: null, finding_count: findings, raw_report: raw });
    expect(computed.validation.details[0]).toMatch(/no verdict/);
    expect(computed.result.status).toBe('computed');
  });

  test('a core slower than the timeout → CORE_VALIDATION_ERROR, by the timeout', async () => {
    core.handler = () => ({ ...json(200, passedReport()), delayMs: 5000 });
    const impatient = createIndicatorService(testConfig({ coreBaseUrl: core.url, artifactBaseUrlTemplate: `${artifacts.url}/{version}`, httpTimeoutSecs: 1 }));
    const error = await domainError(impatient.compute({ payload: PAYLOAD }), 'CORE_VALIDATION_ERROR');
    expect(error.message).toBe('the core validation did not answer within 1 s');
  });

  test('connection refused → CORE_VALIDATION_ERROR', async () => {
    const unreachable = createIndicatorService(testConfig({ coreBaseUrl: await refusedUrl(), artifactBaseUrlTemplate: `${artifacts.url}/{version}` }));
    const error = await domainError(unreachable.compute({ payload: PAYLOAD }), 'CORE_VALIDATION_ERROR');
    expect(error.message).toBe('the core validation could not be reached');
  });

  test('the version is a percent-encoded path segment of the validate URL', async () => {
    core.handler = () => json(404, {});
    await domainError(service.compute({ model_version: '1.0+build?x#y', payload: PAYLOAD }), 'MODEL_VERSION_NOT_FOUND');
    expect(core.requests[0].url).toBe('/models/re-indicators-specification/versions/1.0%2Bbuild%3Fx%23y:validate');
  });

  test('an invalid body fails before any outbound call', async () => {
    await domainError(service.compute({ payload: {} }), 'INVALID_REQUEST_BODY');
    expect(core.requests).toHaveLength(0);
  });

  test('INDICATORS_SKIP_VALIDATION: no core call, status validation_skipped, verdict fields null', async () => {
    const skipping = createIndicatorService(testConfig({ coreBaseUrl: core.url, artifactBaseUrlTemplate: `${artifacts.url}/{version}`, skipValidation: true }));
    const { validation, result } = await skipping.compute({ payload: PAYLOAD });
    expect(core.requests).toHaveLength(0);
    expect(validation).toEqual({
      basis: 'shacl',
      source: 'hex-core-service',
      validation_url: `${core.url}${VALIDATE_PATH}`,
      status: 'validation_skipped',
      passed: null,
      finding_count: null,
      findings_present: null,
      raw_report: null,
      details: [expect.stringContaining('INDICATORS_SKIP_VALIDATION')],
    });
    expect(result.status).toBe('computed');
  });

  test('unknown indicator and `__proto__` → UNKNOWN_INDICATOR_SPECIFICATION after validation', async () => {
    await domainError(service.compute({ payload: { indicator_specification_id: 'REcycle_Car' } }), 'UNKNOWN_INDICATOR_SPECIFICATION');
    const proto = JSON.parse('{"payload":{"indicator_specification_id":"__proto__"}}');
    const error = await domainError(service.compute(proto), 'UNKNOWN_INDICATOR_SPECIFICATION');
    expect(error.details).toBeNull();
  });
});
