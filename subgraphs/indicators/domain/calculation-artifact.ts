import { DomainError } from '../../../kernel/errors.js';

/**
 * The published `calculation.json`: `{artifact_type, model_version, indicator_configurations}` where
 * each indicator configuration holds `parameters[]` (`parameter_ref`, `weight`, optional
 * `fixed_score`, `questions[]`), each question `question_id`, `weight`, `answers[]` (`answer_id`,
 * `score`). The published artifact carries no texts; the model's own `name` (parameters) and `text`
 * (questions, answers) are read when an artifact includes them, so the questionnaire can show them.
 *
 * Parsed once per fetched version into this read-only form; scoring then only does map lookups.
 */
export interface AnswerOption {
  readonly id: string;
  readonly text: string | null;
  readonly score: number;
}

export interface QuestionSpecification {
  readonly id: string;
  readonly text: string | null;
  readonly weight: number;
  readonly answers: readonly AnswerOption[];
  /** answer id → score; a Map so that ids such as `__proto__` are plain keys. */
  readonly scoreByAnswerId: ReadonlyMap<string, number>;
}

export interface ParameterSpecification {
  readonly id: string;
  readonly name: string | null;
  readonly weight: number;
  readonly fixedScore: number | null;
  readonly questions: readonly QuestionSpecification[];
}

export interface IndicatorSpecification {
  readonly id: string;
  readonly indicatorType: string | null;
  readonly productCategory: string | null;
  readonly parameters: readonly ParameterSpecification[];
}

export interface CalculationArtifact {
  readonly modelVersion: string;
  /** In artifact order; own keys of `indicator_configurations` only. */
  readonly indicators: ReadonlyMap<string, IndicatorSpecification>;
}

type Json = Record<string, unknown>;

export function parseCalculationArtifact(document: unknown): CalculationArtifact {
  const root = object(document, '$');
  const configurations = object(root.indicator_configurations, '$.indicator_configurations');
  const indicators = new Map<string, IndicatorSpecification>();
  for (const [id, value] of Object.entries(configurations)) {
    indicators.set(id, indicator(id, value, `$.indicator_configurations[${JSON.stringify(id)}]`));
  }
  return { modelVersion: string(root.model_version, '$.model_version'), indicators };
}

function indicator(id: string, value: unknown, path: string): IndicatorSpecification {
  const json = object(value, path);
  return {
    id,
    indicatorType: optionalString(json.indicator_type, `${path}.indicator_type`),
    productCategory: optionalString(json.product_category, `${path}.product_category`),
    parameters: array(json.parameters, `${path}.parameters`).map((p, i) => parameter(p, `${path}.parameters[${i}]`)),
  };
}

function parameter(value: unknown, path: string): ParameterSpecification {
  const json = object(value, path);
  const questions = json.questions === undefined ? [] : array(json.questions, `${path}.questions`);
  return {
    id: string(json.parameter_ref, `${path}.parameter_ref`),
    name: optionalString(json.name, `${path}.name`),
    weight: number(json.weight, `${path}.weight`),
    fixedScore: json.fixed_score === undefined || json.fixed_score === null ? null : number(json.fixed_score, `${path}.fixed_score`),
    questions: questions.map((q, i) => question(q, `${path}.questions[${i}]`)),
  };
}

function question(value: unknown, path: string): QuestionSpecification {
  const json = object(value, path);
  const answers = array(json.answers, `${path}.answers`).map((a, i) => answer(a, `${path}.answers[${i}]`));
  return {
    id: string(json.question_id, `${path}.question_id`),
    text: optionalString(json.text, `${path}.text`),
    weight: number(json.weight, `${path}.weight`),
    answers,
    scoreByAnswerId: new Map(answers.map((a) => [a.id, a.score])),
  };
}

function answer(value: unknown, path: string): AnswerOption {
  const json = object(value, path);
  return {
    id: string(json.answer_id, `${path}.answer_id`),
    text: optionalString(json.text, `${path}.text`),
    score: number(json.score, `${path}.score`),
  };
}

function malformed(path: string, expected: string): DomainError {
  return new DomainError('CALCULATION_ARTIFACT_ERROR', 'the calculation artifact is malformed', {
    path,
    problem: `expected ${expected}`,
  });
}

function object(value: unknown, path: string): Json {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
  throw malformed(path, 'an object');
}

function array(value: unknown, path: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw malformed(path, 'an array');
}

function string(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  throw malformed(path, 'a string');
}

function optionalString(value: unknown, path: string): string | null {
  return value === undefined || value === null ? null : string(value, path);
}

function number(value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw malformed(path, 'a finite number');
}
