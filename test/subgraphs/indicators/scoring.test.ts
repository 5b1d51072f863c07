import { DomainError } from '../../../kernel/errors.js';
import { parseCalculationArtifact } from '../../../subgraphs/indicators/domain/calculation-artifact.js';
import { parseComputeRequest } from '../../../subgraphs/indicators/domain/compute-request.js';
import { findIndicator, score } from '../../../subgraphs/indicators/domain/scoring.js';

const artifact = parseCalculationArtifact({
  artifact_type: 'calculation',
  model_version: '9.9.9',
  indicator_configurations: {
    Tiny: {
      indicator_type: 'REcycle',
      product_category: 'Toy',
      parameters: [
        {
          parameter_ref: 'P1',
          weight: 0.5,
          questions: [
            {
              question_id: 'Q1',
              weight: 0.25,
              answers: [
                { answer_id: 'a', score: 5 },
                { answer_id: '__proto__', score: 2 },
              ],
            },
            { question_id: 'Q2', weight: 0.75, answers: [{ answer_id: 'b', score: 4 }] },
          ],
        },
        // fixed_score wins even over questions the artifact lists
        { parameter_ref: 'P2', weight: 0.25, fixed_score: 3, questions: [{ question_id: 'Q9', weight: 1, answers: [] }] },
      ],
    },
  },
});

function scored(payload: unknown) {
  const request = parseComputeRequest({ payload });
  return score(findIndicator(artifact, request.payload.indicator_specification_id), request.payload);
}

describe('scoring (DECISIONS section 5)', () => {
  test('Σ answer score × question weight per parameter; total = Σ parameter score × weight / 5', () => {
    const result = scored({
      indicator_specification_id: 'Tiny',
      parameter_assessments: [
        {
          parameter_id: 'P1',
          question_answers: [
            { question_id: 'Q1', selected_answer_id: 'a' },
            { question_id: 'Q2', selected_answer_id: 'b' },
          ],
        },
      ],
    });
    expect(result).toEqual({
      status: 'computed',
      total_score: (4.25 * 0.5 + 3 * 0.25) / 5,
      parameter_scores: [
        {
          parameter_id: 'P1',
          computed_score: 5 * 0.25 + 4 * 0.75,
          question_scores: [
            { question_id: 'Q1', selected_answer_id: 'a', answer_score: 5 },
            { question_id: 'Q2', selected_answer_id: 'b', answer_score: 4 },
          ],
        },
        { parameter_id: 'P2', computed_score: 3, question_scores: [] },
      ],
      notes: ['Scores are computed from calculation.json question scores and parameter weights.'],
    });
  });

  test('payload entries the artifact does not know are ignored; answers to a fixed parameter too', () => {
    const result = scored({
      indicator_specification_id: 'Tiny',
      parameter_assessments: [
        { parameter_id: 'P7', question_answers: [{ question_id: 'Q1', selected_answer_id: 'a' }] },
        { parameter_id: 'P1', question_answers: [{ question_id: 'Q8', selected_answer_id: 'a' }] },
        { parameter_id: 'P2', question_answers: [{ question_id: 'Q9', selected_answer_id: 'x' }] },
      ],
    });
    expect(result.parameter_scores.map((p) => p.computed_score)).toEqual([0, 3]);
    expect(result.parameter_scores[0].question_scores.map((q) => q.selected_answer_id)).toEqual([null, null]);
  });

  test('answer ids are looked up as map keys: `__proto__` is an answer like any other', () => {
    const result = scored({
      indicator_specification_id: 'Tiny',
      parameter_assessments: [
        {
          parameter_id: 'P1',
          question_answers: [
            { question_id: 'Q1', selected_answer_id: '__proto__' },
            { question_id: 'Q2', selected_answer_id: 'constructor' },
          ],
        },
      ],
    });
    expect(result.parameter_scores[0].question_scores).toEqual([
      { question_id: 'Q1', selected_answer_id: '__proto__', answer_score: 2 },
      { question_id: 'Q2', selected_answer_id: 'constructor', answer_score: 0 },
    ]);
  });

  test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('indicator %j is unknown (own keys only)', (id) => {
    expect(() => findIndicator(artifact, id)).toThrow(DomainError);
    try {
      findIndicator(artifact, id);
    } catch (error) {
      expect((error as DomainError).code).toBe('UNKNOWN_INDICATOR_SPECIFICATION');
      expect((error as DomainError).message).toBe(`unknown indicator specification id: ${id}`);
    }
  });

  test('the artifact parser keeps optional texts and rejects a malformed artifact', () => {
    const withTexts = parseCalculationArtifact({
      model_version: '1',
      indicator_configurations: {
        I: {
          parameters: [
            { parameter_ref: 'P', name: 'Documentation', weight: 1, questions: [{ question_id: 'Q', text: 'Is it documented?', weight: 1, answers: [{ answer_id: 'y', text: 'Yes', score: 5 }] }] },
          ],
        },
      },
    });
    const parameter = withTexts.indicators.get('I')?.parameters[0];
    expect(parameter?.name).toBe('Documentation');
    expect(parameter?.questions[0].text).toBe('Is it documented?');
    expect(parameter?.questions[0].answers[0]).toEqual({ id: 'y', text: 'Yes', score: 5 });
    expect(() => parseCalculationArtifact({ model_version: '1', indicator_configurations: { I: { parameters: [{ parameter_ref: 'P', weight: '1' }] } } })).toThrow(
      expect.objectContaining({ code: 'CALCULATION_ARTIFACT_ERROR', details: expect.objectContaining({ path: '$.indicator_configurations["I"].parameters[0].weight' }) }),
    );
  });
});
