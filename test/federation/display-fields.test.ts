import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type FieldDefinitionNode, Kind, parse, print } from 'graphql';
import { projectPath } from '../../kernel/project.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { SAMPLE_DIR } from '../subgraphs/indicators/local-profile.js';

/**
 * Issue 27, "nullability": the fields a screen shows. Non-null where a value is always there (a
 * score is 0 when nothing is answered); nullable where a model version or the catalog may give none
 * (the published calculation artifacts carry no texts, the catalog need not label a version). One
 * test per type: its type in the graph (gateway/supergraph.graphql, what codegen types screens
 * against) and what the running system answers when the value is as thin as it gets.
 */
const SUPERGRAPH = parse(readFileSync(projectPath('gateway', 'supergraph.graphql'), 'utf8'));

function typeOf(typeName: string, field: string): string {
  for (const definition of SUPERGRAPH.definitions) {
    if (definition.kind === Kind.OBJECT_TYPE_DEFINITION && definition.name.value === typeName) {
      const found = definition.fields?.find((candidate: FieldDefinitionNode) => candidate.name.value === field);
      if (found) return print(found.type);
    }
  }
  throw new Error(`no ${typeName}.${field} in the supergraph`);
}

const MODEL = 're-indicators-specification';
/** The sample with its texts, labelled in the catalog. */
const WITH_TEXTS = '0.0.4';
/** The same questionnaire as a published artifact has it: no names, no texts; no label in the catalog. */
const WITHOUT_TEXTS = '0.0.9';

const QUESTIONNAIRE = `query Questionnaire($version: String!) {
  modelVersion(model: "${MODEL}", version: $version) {
    label
    indicators { parameters { parameterId name questions { questionId text answers { answerId text score } } } }
  }
}`;

const SCORE = `mutation Score($payload: JSONObject!) {
  computeIndicators(input: { modelVersion: "${WITH_TEXTS}", payload: $payload }) {
    result { totalScore parameterScores { parameterId computedScore questionScores { questionId selectedAnswerId answerScore } } }
  }
}`;

/** An assessment that answers nothing the questionnaire asks, and one question with an answer it does not offer. */
const UNANSWERED = {
  id: 'unanswered-1',
  timestamp: '2025-01-15T10:30:00Z',
  product_info: { product_category: 'Battery', manufacturer: 'Sample Cells Ltd' },
  indicator_specification_id: 'REcycle_Sample_Battery',
  parameter_assessments: [{ parameter_id: 'P2_cell_removability', question_answers: [{ question_id: 'Q2.1', selected_answer_id: 'not-an-answer' }] }],
};

describe('display fields: non-null where always there, null where a model version gives none', () => {
  let dir: string;
  let sut: TestSystem;
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables } });
    expect(answer.json.errors).toBeUndefined();
    return answer.json.data;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'display-fields-'));
    cpSync(path.join(SAMPLE_DIR, WITH_TEXTS), path.join(dir, WITH_TEXTS), { recursive: true });
    cpSync(path.join(SAMPLE_DIR, WITH_TEXTS), path.join(dir, WITHOUT_TEXTS), { recursive: true });
    const calculation = JSON.parse(readFileSync(path.join(dir, WITHOUT_TEXTS, 'calculation.json'), 'utf8'), (key, value) => (key === 'name' || key === 'text' ? undefined : value));
    writeFileSync(path.join(dir, WITHOUT_TEXTS, 'calculation.json'), JSON.stringify({ ...calculation, model_version: WITHOUT_TEXTS }));
    const base = pathToFileURL(dir).href;
    const catalog = [
      { model: MODEL, version: WITH_TEXTS, base_url: `${base}/${WITH_TEXTS}/`, label: 'RE indicators (sample)' },
      { model: MODEL, version: WITHOUT_TEXTS, base_url: `${base}/${WITHOUT_TEXTS}/` },
    ];
    sut = await startInProcessSystem({
      ...NO_AUTH,
      REGISTRY_CATALOG_JSON: JSON.stringify(catalog),
      REGISTRY_ALLOW_FILE_URLS: 'true',
      ARTIFACT_BASE_URL_TEMPLATE: `${base}/{version}/`,
    });
  });
  afterAll(async () => {
    await sut?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("IndicatorResult.totalScore is Float!: a number when nothing is answered (here only P3's fixed score counts)", async () => {
    expect(typeOf('IndicatorResult', 'totalScore')).toBe('Float!');
    const { computeIndicators } = await graphql(SCORE, { payload: UNANSWERED });
    expect(computeIndicators.result.totalScore).toBeCloseTo((5 * 0.25) / 5, 12);
  });

  test('ParameterScore.computedScore is Float!: 0 for a parameter nobody answered, its fixed score otherwise', async () => {
    expect(typeOf('ParameterScore', 'computedScore')).toBe('Float!');
    const { computeIndicators } = await graphql(SCORE, { payload: UNANSWERED });
    expect(computeIndicators.result.parameterScores.map((p: { computedScore: number }) => p.computedScore)).toEqual([0, 0, 5]);
  });

  test('QuestionScore.answerScore is Float!: 0 for no answer and for an answer the question does not offer', async () => {
    expect(typeOf('QuestionScore', 'answerScore')).toBe('Float!');
    const { computeIndicators } = await graphql(SCORE, { payload: UNANSWERED });
    const [p1, p2] = computeIndicators.result.parameterScores;
    expect(p1.questionScores).toEqual([
      { questionId: 'Q1.1', selectedAnswerId: null, answerScore: 0 },
      { questionId: 'Q1.2', selectedAnswerId: null, answerScore: 0 },
    ]);
    expect(p2.questionScores).toEqual([{ questionId: 'Q2.1', selectedAnswerId: 'not-an-answer', answerScore: 0 }]);
  });

  test("IndicatorParameter.name is nullable: the model version's name, or null when its artifact has none", async () => {
    expect(typeOf('IndicatorParameter', 'name')).toBe('String');
    const names = async (version: string) => (await graphql(QUESTIONNAIRE, { version })).modelVersion.indicators[0].parameters.map((p: { name: string | null }) => p.name);
    expect(await names(WITH_TEXTS)).toEqual(['Disassembly information', expect.any(String), expect.any(String)]);
    expect(await names(WITHOUT_TEXTS)).toEqual([null, null, null]);
  });

  test('IndicatorQuestion.text is nullable: the question, or null when the artifact has none', async () => {
    expect(typeOf('IndicatorQuestion', 'text')).toBe('String');
    const firstQuestion = async (version: string) => (await graphql(QUESTIONNAIRE, { version })).modelVersion.indicators[0].parameters[0].questions[0];
    expect((await firstQuestion(WITH_TEXTS)).text).toBe('Can recyclers obtain a disassembly guide for the pack?');
    expect((await firstQuestion(WITHOUT_TEXTS)).text).toBeNull();
  });

  test('IndicatorAnswer.text is nullable, IndicatorAnswer.score and answerId are not: the answer, or null when the artifact has none (show answerId)', async () => {
    expect([typeOf('IndicatorAnswer', 'text'), typeOf('IndicatorAnswer', 'score'), typeOf('IndicatorAnswer', 'answerId')]).toEqual(['String', 'Float!', 'String!']);
    const answers = async (version: string) => (await graphql(QUESTIONNAIRE, { version })).modelVersion.indicators[0].parameters[0].questions[0].answers;
    expect((await answers(WITH_TEXTS))[0]).toEqual({ answerId: 'guide_public', text: 'A disassembly guide is publicly available', score: 5 });
    expect(await answers(WITHOUT_TEXTS)).toEqual([
      { answerId: 'guide_public', text: null, score: 5 },
      { answerId: 'guide_on_request', text: null, score: 3 },
      { answerId: 'guide_none', text: null, score: 0 },
    ]);
  });

  test("ModelVersion.label is nullable: the catalog's label, or null when the catalog gives none", async () => {
    expect(typeOf('ModelVersion', 'label')).toBe('String');
    expect((await graphql(QUESTIONNAIRE, { version: WITH_TEXTS })).modelVersion.label).toBe('RE indicators (sample)');
    expect((await graphql(QUESTIONNAIRE, { version: WITHOUT_TEXTS })).modelVersion.label).toBeNull();
  });
});
