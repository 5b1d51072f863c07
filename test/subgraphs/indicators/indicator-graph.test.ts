import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';
import { SAMPLE_SCORES, localProfileEnv, sampleRequest } from './local-profile.js';

const QUESTIONNAIRE = `query Questionnaire($model: String!, $version: String!) {
  modelVersion(model: $model, version: $version) {
    model version label
    indicatorSpecifications {
      id indicatorType productCategory
      parameters { id name weight fixedScore questions { id text weight answers { id text score } } }
    }
  }
}`;

const SCORE = `mutation Score($input: ComputeIndicatorsInput!) {
  computeIndicators(input: $input) {
    modelVersion
    validation { status passed findingCount }
    result { status totalScore parameterScores { parameterId computedScore questionScores { questionId selectedAnswerId answerScore } } }
  }
}`;

/** `example-assessment.request.json`'s payload as the typed input. */
const SAMPLE_ASSESSMENT = {
  id: 'sample-assessment-0001',
  timestamp: '2025-01-15T10:30:00Z',
  productInfo: { productCategory: 'Battery', manufacturer: 'Sample Cells Ltd' },
  indicatorSpecificationId: 'REcycle_Sample_Battery',
  parameterAssessments: [
    {
      parameterId: 'P1_disassembly_information',
      questionAnswers: [
        { questionId: 'Q1.1', selectedAnswerId: 'guide_on_request' },
        { questionId: 'Q1.2', selectedAnswerId: 'chemistry_labelled_all' },
      ],
    },
    { parameterId: 'P2_cell_removability', questionAnswers: [{ questionId: 'Q2.1', selectedAnswerId: 'joint_clips' }] },
  ],
};

/** A frontend's view: one graph renders the questionnaire (models + indicators) and scores the answers. */
describe('indicators in the unified graph', () => {
  let sut: TestSystem;
  const graphql = (query: string, variables: Record<string, unknown> = {}) => call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables } });

  beforeAll(async () => {
    sut = await startInProcessSystem({ ...NO_AUTH, ...localProfileEnv(['other-model']) });
  });
  afterAll(() => sut?.stop());

  test('one request renders the questionnaire of a model version (entity resolved across models and indicators)', async () => {
    const answer = await graphql(QUESTIONNAIRE, { model: 're-indicators-specification', version: '0.0.4' });
    expect(answer.json.errors).toBeUndefined();
    const { modelVersion } = answer.json.data;
    expect(modelVersion).toMatchObject({ model: 're-indicators-specification', version: '0.0.4' });
    expect(modelVersion.indicatorSpecifications.map((s: { id: string }) => s.id)).toEqual(['REcycle_Sample_Battery', 'REuse_Sample_Laptop']);
    const [battery] = modelVersion.indicatorSpecifications;
    expect(battery).toMatchObject({ indicatorType: 'REcycle', productCategory: 'Battery' });
    expect(battery.parameters[0]).toEqual({
      id: 'P1_disassembly_information',
      name: 'Disassembly information',
      weight: 0.4,
      fixedScore: null,
      questions: [
        {
          id: 'Q1.1',
          text: 'Can recyclers obtain a disassembly guide for the pack?',
          weight: 0.6,
          answers: [
            { id: 'guide_public', text: 'A disassembly guide is publicly available', score: 5 },
            { id: 'guide_on_request', text: 'A disassembly guide is available to recyclers on request', score: 3 },
            { id: 'guide_none', text: 'No disassembly guide exists', score: 0 },
          ],
        },
        expect.objectContaining({ id: 'Q1.2' }),
      ],
    });
    expect(battery.parameters[2]).toMatchObject({ id: 'P3_take_back', fixedScore: 5, questions: [] });
  });

  test('a model of another family has no indicator specifications', async () => {
    const answer = await graphql('{ modelVersions { model version indicatorSpecifications { id } } }');
    expect(answer.json.data.modelVersions).toEqual([
      { model: 'other-model', version: '1.0', indicatorSpecifications: [] },
      { model: 're-indicators-specification', version: '0.0.4', indicatorSpecifications: [{ id: 'REcycle_Sample_Battery' }, { id: 'REuse_Sample_Laptop' }] },
    ]);
  });

  test('one request scores an answered questionnaire', async () => {
    const answer = await graphql(SCORE, { input: sampleRequest() });
    expect(answer.json.errors).toBeUndefined();
    const { computeIndicators: computed } = answer.json.data;
    expect(computed.modelVersion).toBe('0.0.4');
    expect(computed.validation).toEqual({ status: 'VALIDATED_BY_CORE', passed: true, findingCount: 0 });
    expect(computed.result.status).toBe('COMPUTED');
    expect(computed.result.totalScore).toBeCloseTo(SAMPLE_SCORES.total, 12);
    expect(computed.result.parameterScores.map((p: { computedScore: number }) => p.computedScore)).toEqual(SAMPLE_SCORES.parameters.map((s) => expect.closeTo(s, 12)));
    expect(computed.result.parameterScores[1].questionScores).toEqual([{ questionId: 'Q2.1', selectedAnswerId: 'joint_clips', answerScore: 4 }]);
  });

  test('the same questionnaire as typed fields is validated and scored as the same payload', async () => {
    const typed = await graphql(
      `
        mutation ($input: ComputeIndicatorsInput!) {
          computeIndicators(input: $input) {
            modelVersion
            payload
            result {
              totalScore
            }
          }
        }
      `,
      {
        input: { modelVersion: '0.0.4', assessment: SAMPLE_ASSESSMENT },
      },
    );
    expect(typed.json.errors).toBeUndefined();
    const { computeIndicators: computed } = typed.json.data;
    // The model's own JSON, with the instant in UTC and milliseconds.
    expect(computed.payload).toEqual({ ...sampleRequest().payload, timestamp: '2025-01-15T10:30:00.000Z' });
    expect(computed.result.totalScore).toBeCloseTo(SAMPLE_SCORES.total, 12);
  });

  test('errors keep their code and details, the same as the REST facade', async () => {
    const neither = await graphql(SCORE, { input: {} });
    expect(neither.json.errors[0].extensions).toEqual({ code: 'INVALID_REQUEST_BODY', details: { problems: [{ path: '$.payload', message: 'is required and must be an object' }] } });
    const both = await graphql(SCORE, { input: { ...sampleRequest(), assessment: SAMPLE_ASSESSMENT } });
    expect(both.json.errors[0]).toMatchObject({ message: expect.stringContaining('not both'), extensions: { code: 'INVALID_REQUEST_BODY' } });

    const unknown = await graphql(SCORE, { input: { payload: { indicator_specification_id: 'REcycle_Nope' } } });
    expect(unknown.json.errors[0].extensions.code).toBe('UNKNOWN_INDICATOR_SPECIFICATION');

    const rejected = { payload: { ...sampleRequest().payload, timestamp: 'not a time' } };
    const graph = await graphql(SCORE, { input: rejected });
    const rest = await call(sut.url('indicators'), 'POST', '/compute', { body: rejected });
    expect(graph.json.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(graph.json.errors[0].extensions.details).toEqual(rest.json.details);
    expect(graph.json.errors[0].extensions.details).toMatchObject({ passed: false, finding_count: 1, raw_report: { passed: false } });

    // A version the registry does not know has no questionnaire to ask for.
    const missing = await graphql(QUESTIONNAIRE, { model: 're-indicators-specification', version: '0.0.9' });
    expect(missing.json).toEqual({ data: { modelVersion: null } });
  });

  test('health.indicators answers through the graph', async () => {
    const answer = await graphql('{ health { indicators { status modelFamily coreBaseUrl port } } }');
    expect(answer.json.data.health.indicators).toEqual({ status: 'ok', modelFamily: 're-indicators-specification', coreBaseUrl: sut.url('core'), port: sut.port('indicators') });
  });
});
