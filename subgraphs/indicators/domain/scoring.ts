import { DomainError } from '../../../kernel/errors.js';
import type { CalculationArtifact, IndicatorSpecification, ParameterSpecification } from './calculation-artifact.js';
import type { AssessmentPayload, ParameterAssessment } from './compute-request.js';

export interface QuestionScore {
  question_id: string;
  selected_answer_id: string | null;
  answer_score: number;
}

export interface ParameterScore {
  parameter_id: string;
  computed_score: number;
  question_scores: QuestionScore[];
}

export interface ScoringResult {
  status: 'computed';
  total_score: number;
  parameter_scores: ParameterScore[];
  notes: string[];
}

/** The reference's sentence, kept word for word so results compare equal to its vectors. */
const SCORING_NOTE = 'Scores are computed from calculation.json question scores and parameter weights.';

/** Answer scores run 0..5: dividing by 5 brings the weighted total onto the scale of the parameter weights. */
const MAX_ANSWER_SCORE = 5;

export function findIndicator(artifact: CalculationArtifact, id: string): IndicatorSpecification {
  const indicator = artifact.indicators.get(id);
  if (indicator) return indicator;
  throw new DomainError('UNKNOWN_INDICATOR_SPECIFICATION', `unknown indicator specification id: ${id}`);
}

/**
 * DECISIONS section 5. The artifact drives the iteration (its parameters and questions, in its
 * order); the payload is only looked up, so entries the artifact does not know are ignored.
 * Sums accumulate left to right from 0 in artifact order, as the reference does, so results agree
 * with its vectors to the last bits.
 */
export function score(indicator: IndicatorSpecification, payload: AssessmentPayload): ScoringResult {
  const assessments = lastById(payload.parameter_assessments, (a) => a.parameter_id);
  const parameterScores = indicator.parameters.map((p) => scoreParameter(p, assessments.get(p.id)));
  let weighted = 0;
  indicator.parameters.forEach((p, i) => {
    weighted += parameterScores[i].computed_score * p.weight;
  });
  return {
    status: 'computed',
    total_score: weighted / MAX_ANSWER_SCORE,
    parameter_scores: parameterScores,
    notes: [SCORING_NOTE],
  };
}

function scoreParameter(parameter: ParameterSpecification, assessment: ParameterAssessment | undefined): ParameterScore {
  if (parameter.fixedScore !== null) {
    return { parameter_id: parameter.id, computed_score: parameter.fixedScore, question_scores: [] };
  }
  const answers = lastById(assessment?.question_answers ?? [], (a) => a.question_id);
  let computed = 0;
  const questionScores = parameter.questions.map((question): QuestionScore => {
    // Unknown, empty and null answer ids score 0 but are echoed as given.
    const selected = answers.get(question.id)?.selected_answer_id ?? null;
    const answerScore = (selected === null ? undefined : question.scoreByAnswerId.get(selected)) ?? 0;
    computed += answerScore * question.weight;
    return { question_id: question.id, selected_answer_id: selected, answer_score: answerScore };
  });
  return { parameter_id: parameter.id, computed_score: computed, question_scores: questionScores };
}

/** Duplicated ids: the last entry wins, whole (a repeated parameter replaces all earlier answers). */
function lastById<T>(items: readonly T[], idOf: (item: T) => string): Map<string, T> {
  return new Map(items.map((item) => [idOf(item), item]));
}
