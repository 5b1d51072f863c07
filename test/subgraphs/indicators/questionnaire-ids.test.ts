import { readFileSync } from 'node:fs';
import { DomainError } from '../../../kernel/errors.js';
import { parseGlobalId } from '../../../kernel/graphql/global-id.js';
import { type CalculationArtifact, parseCalculationArtifact } from '../../../subgraphs/indicators/domain/calculation-artifact.js';
import { type QuestionnaireItem, questionnaireItem, questionnaireOf } from '../../../subgraphs/indicators/graphql/questionnaire.js';
import { sharedDataAvailable, sharedPath } from '../../support/shared-data.js';
import { SAMPLE_DIR } from './local-profile.js';

/**
 * The questionnaire's items as `ModelVersion.indicators` and `node(id:)` give them (issue 37): every
 * item an id of its own in every version, its local key beside it, and found again by that id.
 */
const sample = (version = '0.0.4'): CalculationArtifact => parseCalculationArtifact({ ...JSON.parse(readFileSync(`${SAMPLE_DIR}/0.0.4/calculation.json`, 'utf8')), model_version: version });

/** Every item of a questionnaire, depth first, with its type. */
function itemsOf(artifact: CalculationArtifact): Array<[string, QuestionnaireItem]> {
  return questionnaireOf(artifact).indicators.flatMap((indicator) => [
    ['Indicator', indicator] as [string, QuestionnaireItem],
    ...indicator.parameters.flatMap((parameter) => [
      ['IndicatorParameter', parameter] as [string, QuestionnaireItem],
      ...parameter.questions.flatMap((question) => [
        ['IndicatorQuestion', question] as [string, QuestionnaireItem],
        ...question.answers.map((answer) => ['IndicatorAnswer', answer] as [string, QuestionnaireItem]),
      ]),
    ]),
  ]);
}

describe('the ids of a questionnaire', () => {
  test('the sample: local keys kept under their own names, ids of the right type, each found again by its id', () => {
    const artifact = sample();
    const [battery] = questionnaireOf(artifact).indicators;
    expect(battery).toMatchObject({ indicatorSpecificationId: 'REcycle_Sample_Battery', indicatorType: 'REcycle', productCategory: 'Battery' });
    expect(battery!.parameters[0]).toMatchObject({ parameterId: 'P1_disassembly_information', name: 'Disassembly information', weight: 0.4, fixedScore: null });
    expect(battery!.parameters[0]!.questions[0]).toMatchObject({ questionId: 'Q1.1', weight: 0.6 });
    expect(battery!.parameters[0]!.questions[0]!.answers[0]).toEqual({
      id: expect.any(String),
      nodeRef: battery!.parameters[0]!.questions[0]!.answers[0]!.id,
      answerId: 'guide_public',
      text: 'A disassembly guide is publicly available',
      score: 5,
    });
    const items = itemsOf(artifact);
    for (const [type, item] of items) {
      expect(parseGlobalId(item.id)?.type).toBe(type);
      expect(questionnaireOf(artifact).items.get(item.id)).toBe(item);
    }
    expect(questionnaireOf(artifact).items.size).toBe(items.length);
  });

  test('built once per parsed artifact: every request shares the same objects', () => {
    const artifact = sample();
    expect(questionnaireOf(artifact)).toBe(questionnaireOf(artifact));
    expect(questionnaireOf(sample()).indicators[0]!.id).toBe(questionnaireOf(artifact).indicators[0]!.id);
  });

  test('the same keys in two versions are different objects with different ids; a version keeps its ids', () => {
    const first = itemsOf(sample('0.0.4')).map(([, item]) => item.id);
    const next = itemsOf(sample('0.0.5')).map(([, item]) => item.id);
    expect(new Set([...first, ...next]).size).toBe(first.length + next.length);
    expect(itemsOf(sample('0.0.4')).map(([, item]) => item.id)).toEqual(first);
  });

  test('keys repeated among siblings of a malformed artifact still give each item an id of its own', () => {
    const answers = [
      { answer_id: 'yes', score: 5 },
      { answer_id: 'yes', score: 0 },
    ];
    const question = { question_id: 'Q1', weight: 1, answers };
    const artifact = parseCalculationArtifact({
      model_version: '1.0',
      indicator_configurations: { I: { parameters: [{ parameter_ref: 'P', weight: 1, questions: [question, question] }] } },
    });
    const ids = itemsOf(artifact).map(([, item]) => item.id);
    expect(ids).toHaveLength(1 + 1 + 2 + 4);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describeWithPublished('the published 0.0.4 questionnaire (2,266 items, keys repeated across indicators)', () => {
  test('no two items share an id, and the keys that repeat are different objects', () => {
    const artifact = parseCalculationArtifact(JSON.parse(readFileSync(sharedPath('re-indicators-specification', '0.0.4', 'calculation.json'), 'utf8')));
    const items = itemsOf(artifact);
    expect(items).toHaveLength(2266);
    expect(new Set(items.map(([, item]) => item.id)).size).toBe(2266);
    const depollution = items.filter(([type, item]) => type === 'IndicatorParameter' && 'parameterId' in item && item.parameterId === 'P3_depollution');
    expect(depollution.length).toBeGreaterThan(1);
    expect(Math.max(...items.map(([, item]) => item.id.length))).toBeLessThanOrEqual(48);
  });
});

function describeWithPublished(name: string, body: () => void): void {
  (sharedDataAvailable('re-indicators-specification/0.0.4') ? describe : describe.skip)(name, body);
}

describe('an item looked up by id (what node(id:) hands the indicators subgraph)', () => {
  const artifact = sample();
  const [, question] = itemsOf(artifact).find(([type]) => type === 'IndicatorQuestion')!;
  const service = (load: (version: string) => Promise<CalculationArtifact>) => ({ calculationArtifact: load });

  test('found by its id and type', async () => {
    expect(
      await questionnaireItem(
        service(async () => artifact),
        'IndicatorQuestion',
        question.id,
      ),
    ).toBe(question);
  });

  test('null for an id of another type, an id that is not one, an item the questionnaire lacks, a version with no artifact', async () => {
    const loaded = service(async () => artifact);
    expect(await questionnaireItem(loaded, 'IndicatorAnswer', question.id)).toBeNull();
    expect(await questionnaireItem(loaded, 'IndicatorQuestion', 'not-an-id')).toBeNull();
    expect(
      await questionnaireItem(
        service(async () => sample('0.0.4-other')),
        'IndicatorQuestion',
        question.id,
      ),
    ).toBeNull();
    const unpublished = service(async () => {
      throw new DomainError('CALCULATION_ARTIFACT_NOT_FOUND', 'none');
    });
    expect(await questionnaireItem(unpublished, 'IndicatorQuestion', question.id)).toBeNull();
  });

  test('a failure to read the artifact is an error, not a missing item', async () => {
    const failing = service(async () => {
      throw new DomainError('CALCULATION_ARTIFACT_ERROR', 'the host answered 500');
    });
    await expect(questionnaireItem(failing, 'IndicatorQuestion', question.id)).rejects.toMatchObject({ code: 'CALCULATION_ARTIFACT_ERROR' });
  });
});
