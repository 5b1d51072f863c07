import { openApiProblems } from '../../support/openapi.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem, STORES } from '../../support/system.js';
import { json, passedReport, startServer, type TestServer } from '../../subgraphs/indicators/http-fixtures.js';
import { SAMPLE_SCORES, SAMPLE_TEMPLATE, localProfileEnv, sampleRequest } from '../../subgraphs/indicators/local-profile.js';

describe.each(STORES)('on %s', (store) => {
  const errorBody = (code: string) => ({ code, message: expect.any(String), details: expect.anything() });

  describe('indicator facade in the local profile (sample model, this process as the core)', () => {
    let sut: TestSystem;
    let indicators: string;
    const compute = (body: unknown, headers: Record<string, string> = {}) => call(indicators, 'POST', '/compute', { body, headers });

    beforeAll(async () => {
      sut = await startInProcessSystem({ ...NO_AUTH, ...localProfileEnv() }, { store });
      indicators = sut.url('indicators');
    });
    afterAll(() => sut?.stop());

    test('POST /compute of the example assessment request is 200 with doc 02 response and the expected scores', async () => {
      const request = sampleRequest();
      const answer = await compute(request);
      expect(answer.status).toBe(200);
      const base = `${SAMPLE_TEMPLATE.replace('{version}', '0.0.4')}`;
      expect(answer.json).toEqual({
        model_family: 're-indicators-specification',
        model_version: '0.0.4',
        artifact_base_url: base,
        artifacts: {
          model_version: '0.0.4',
          base_url: base,
          calculation_url: `${base}calculation.json`,
          shacl_url: `${base}shacl.ttl`,
          schema_url: `${base}schema.json`,
          owl_url: `${base}owl.ttl`,
        },
        payload: request.payload,
        validation: {
          basis: 'shacl',
          source: 'hex-core-service',
          // CORE_PORT=0: the default core URL is the port the core facade actually bound.
          validation_url: `${sut.url('core')}/models/re-indicators-specification/versions/0.0.4:validate`,
          status: 'validated_by_core',
          passed: true,
          finding_count: 0,
          findings_present: false,
          raw_report: { passed: true, results: expect.any(Array) },
          details: expect.arrayContaining([expect.stringContaining('passed')]),
        },
        result: { status: 'computed', total_score: expect.any(Number), parameter_scores: expect.any(Array), notes: [expect.any(String)] },
      });
      const { result } = answer.json;
      expect(result.total_score).toBeCloseTo(SAMPLE_SCORES.total, 12);
      result.parameter_scores.forEach((p: { computed_score: number }, i: number) => expect(p.computed_score).toBeCloseTo(SAMPLE_SCORES.parameters[i]!, 12));
      expect(result.parameter_scores[0]).toEqual({
        parameter_id: 'P1_disassembly_information',
        computed_score: expect.any(Number),
        question_scores: [
          { question_id: 'Q1.1', selected_answer_id: 'guide_on_request', answer_score: 3 },
          { question_id: 'Q1.2', selected_answer_id: 'chemistry_labelled_all', answer_score: 5 },
        ],
      });
      expect(result.parameter_scores[2]).toEqual({ parameter_id: 'P3_take_back', computed_score: 5, question_scores: [] });
    });

    test('GET /health reports exactly doc 02 fields, with the bound ports', async () => {
      const answer = await call(indicators, 'GET', '/health');
      expect(answer.status).toBe(200);
      expect(answer.json).toStrictEqual({
        status: 'ok',
        model_family: 're-indicators-specification',
        validation_basis: 'shacl',
        default_testing_version: '0.0.4',
        artifact_base_url_template: SAMPLE_TEMPLATE,
        core_base_url: sut.url('core'),
        http_timeout_secs: 15,
        bind_address: '127.0.0.1',
        port: sut.port('indicators'),
        calculation_artifact_url_template: `${SAMPLE_TEMPLATE}calculation.json`,
      });
    });

    test('GET /openapi.json is a valid OpenAPI 3.1 document of the three paths', async () => {
      const answer = await call(indicators, 'GET', '/openapi.json');
      expect(answer.status).toBe(200);
      expect(await openApiProblems(answer.json)).toBe('');
      expect(answer.json.openapi).toBe('3.1.0');
      expect(Object.keys(answer.json.paths).sort()).toEqual(['/compute', '/health', '/openapi.json']);
    });

    test('an unusable body is 400 INVALID_REQUEST_BODY: malformed JSON, not an object, null, shape problems with paths', async () => {
      for (const body of ['{"payload": ', '[1, 2]', 'null', '"text"']) {
        const answer = await compute(body);
        expect(answer.status).toBe(400);
        expect(answer.json).toEqual({ code: 'INVALID_REQUEST_BODY', message: expect.any(String), details: { problems: [{ path: '$', message: expect.any(String) }] } });
      }
      const shape = await compute({ model_version: '../x', payload: { parameter_assessments: [{ question_answers: 'no' }] } });
      expect(shape.status).toBe(400);
      expect(shape.json.details.problems.map((p: { path: string }) => p.path)).toEqual([
        '$.model_version',
        '$.payload.indicator_specification_id',
        '$.payload.parameter_assessments[0].parameter_id',
        '$.payload.parameter_assessments[0].question_answers',
      ]);
    });

    test('a version the core does not know is 404 MODEL_VERSION_NOT_FOUND', async () => {
      const answer = await compute({ ...sampleRequest(), model_version: '9.9.9' });
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual(errorBody('MODEL_VERSION_NOT_FOUND'));
    });

    test('a payload the core rejects is 422 VALIDATION_FAILED whose details are the whole validation section', async () => {
      const request = sampleRequest();
      const answer = await compute({ payload: { ...request.payload, timestamp: 'not a time' } });
      expect(answer.status).toBe(422);
      expect(answer.json.code).toBe('VALIDATION_FAILED');
      expect(answer.json.details).toEqual({
        basis: 'shacl',
        source: 'hex-core-service',
        validation_url: expect.stringMatching(/:validate$/),
        status: 'validated_by_core',
        passed: false,
        finding_count: 1,
        findings_present: true,
        raw_report: { passed: false, results: expect.any(Array) },
        details: expect.arrayContaining([expect.stringContaining('$.timestamp')]),
      });
    });

    test('an indicator id the artifact does not define is 422 UNKNOWN_INDICATOR_SPECIFICATION', async () => {
      const request = sampleRequest();
      for (const id of ['REcycle_Nope', '__proto__']) {
        const answer = await compute({ payload: { ...request.payload, indicator_specification_id: id } });
        expect(answer.status).toBe(422);
        expect(answer.json).toEqual({ code: 'UNKNOWN_INDICATOR_SPECIFICATION', message: expect.any(String), details: null });
      }
    });

    test('HTTP-level errors keep the {code, message, details} envelope', async () => {
      const notJson = await call(indicators, 'POST', '/compute', { body: 'x', headers: { 'content-type': 'text/plain' } });
      expect(notJson.status).toBe(415);
      expect(notJson.json).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String), details: null });
      const unknown = await call(indicators, 'GET', '/nope');
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: null });
      const wrong = await call(indicators, 'GET', '/compute');
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('POST');
      expect(wrong.json).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.any(String), details: { allowed: ['POST'] } });
    });
  });

  /** A calculation artifact shaped like the published ones, for the mock artifact host. */
  function calculation(modelVersion: string, answerScore = 4): string {
    const question = { question_id: 'Q1', weight: 10, answers: [{ answer_id: 'a', score: answerScore }] };
    return JSON.stringify({ model_version: modelVersion, indicator_configurations: { IND: { parameters: [{ parameter_ref: 'P1', weight: 1, questions: [question] }] } } });
  }

  const ARTIFACTS: Record<string, () => ReturnType<typeof json>> = {
    '/0.0.4/calculation.json': () => ({ status: 200, body: calculation('0.0.4') }),
    '/0.0.6/calculation.json': () => ({ status: 200, body: '{"model_version": ' }),
    '/0.0.7/calculation.json': () => ({ status: 200, body: calculation('0.0.4') }),
    // Finite inputs whose score overflows: the graph cannot represent Infinity as a Float.
    '/0.0.8/calculation.json': () => ({ status: 200, body: calculation('0.0.8', 1e308) }),
  };

  describe('indicator facade against a mock core and a mock artifact host', () => {
    let core: TestServer;
    let artifacts: TestServer;
    let sut: TestSystem;
    let indicators: string;
    const payload = { indicator_specification_id: 'IND', parameter_assessments: [{ parameter_id: 'P1', question_answers: [{ question_id: 'Q1', selected_answer_id: 'a' }] }] };
    const compute = (modelVersion: string, headers: Record<string, string> = {}) => call(indicators, 'POST', '/compute', { body: { model_version: modelVersion, payload }, headers });

    beforeAll(async () => {
      core = await startServer(() => json(200, passedReport()));
      artifacts = await startServer((request) => ARTIFACTS[request.url]?.() ?? { status: 404 });
      sut = await startInProcessSystem(
        {
          ...NO_AUTH,
          REGISTRY_CATALOG_JSON: '[]',
          CORE_BASE_URL: core.url,
          ARTIFACT_BASE_URL_TEMPLATE: `${artifacts.url}/{version}/`,
          SERVER_REQUEST_MAX_BYTES: '65536',
        },
        { store },
      );
      indicators = sut.url('indicators');
    });
    afterEach(() => {
      core.handler = () => json(200, passedReport());
    });
    afterAll(async () => {
      await sut?.stop();
      await core?.close();
      await artifacts?.close();
    });

    test('the caller bearer token is forwarded to the core with the payload as sent; other schemes are not', async () => {
      const answer = await compute('0.0.4', { authorization: 'Bearer caller-token-1' });
      expect(answer.status).toBe(200);
      expect(answer.json.result.total_score).toBe(8);
      const seen = core.requests.at(-1)!;
      expect(seen.url).toBe('/models/re-indicators-specification/versions/0.0.4:validate');
      expect(seen.headers.authorization).toBe('Bearer caller-token-1');
      expect(JSON.parse(seen.body)).toEqual({ payload });
      await compute('0.0.4', { authorization: 'Basic dXNlcjpwdw==' });
      expect(core.requests.at(-1)!.headers.authorization).toBeUndefined();
      await compute('0.0.4');
      expect(core.requests.at(-1)!.headers.authorization).toBeUndefined();
    });

    test('the core rejecting the caller (401) is 401 CORE_UNAUTHORIZED; any other status, 403 included, is 502 (DECISIONS section 5)', async () => {
      core.handler = () => json(401, { code: 'UNAUTHORIZED', message: 'no' });
      const rejected = await compute('0.0.4', { authorization: 'Bearer bad' });
      expect(rejected.status).toBe(401);
      expect(rejected.json).toEqual({ code: 'CORE_UNAUTHORIZED', message: expect.any(String), details: expect.objectContaining({ upstream_status: 401 }) });
      core.handler = () => json(403, { code: 'FORBIDDEN', message: 'no' });
      const forbidden = await compute('0.0.4', { authorization: 'Bearer bad' });
      expect(forbidden.status).toBe(502);
      expect(forbidden.json).toEqual({ code: 'CORE_VALIDATION_ERROR', message: expect.any(String), details: expect.objectContaining({ upstream_status: 403 }) });
    });

    test('a failing core is 502 CORE_VALIDATION_ERROR, without the upstream body', async () => {
      core.handler = () => ({ status: 500, body: 'upstream secret stack trace' });
      const answer = await compute('0.0.4');
      expect(answer.status).toBe(502);
      expect(answer.json).toEqual(errorBody('CORE_VALIDATION_ERROR'));
      expect(answer.text).not.toContain('secret');
    });

    test.each([
      ['0.0.5', 404, 'CALCULATION_ARTIFACT_NOT_FOUND'],
      ['0.0.6', 502, 'CALCULATION_ARTIFACT_ERROR'],
      ['0.0.7', 502, 'CALCULATION_ARTIFACT_VERSION_MISMATCH'],
    ])('calculation artifact of %s: %i %s', async (version, status, code) => {
      const answer = await compute(version);
      expect(answer.status).toBe(status);
      expect(answer.json).toEqual(errorBody(code));
    });

    test('an unexpected failure is 500 INTERNAL_ERROR without its text', async () => {
      const answer = await compute('0.0.8');
      expect(answer.status).toBe(500);
      expect(answer.json).toEqual({ code: 'INTERNAL_ERROR', message: 'internal error', details: null });
    });

    test('a body over SERVER_REQUEST_MAX_BYTES is 413 PAYLOAD_TOO_LARGE', async () => {
      const answer = await call(indicators, 'POST', '/compute', { body: { payload: { ...payload, padding: 'x'.repeat(70_000) } } });
      expect(answer.status).toBe(413);
      expect(answer.json).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.any(String), details: { max_bytes: 65536 } });
    });
  });
});
