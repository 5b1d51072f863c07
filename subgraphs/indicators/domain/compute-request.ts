import { DomainError } from '../../../kernel/errors.js';
import { isVersionSegment } from './artifact-urls.js';
import { isJsonObject, type JsonObject } from '../../../kernel/json.js';

export const MODEL_FAMILY = 're-indicators-specification';
export const DEFAULT_MODEL_VERSION = '0.0.4';

/** A missing `selected_answer_id` stays missing in the echo and scores as null. */
export interface QuestionAnswer {
  question_id: string;
  selected_answer_id?: string | null;
  [extra: string]: unknown;
}

export interface ParameterAssessment {
  parameter_id: string;
  question_answers: QuestionAnswer[];
  [extra: string]: unknown;
}

/** The echoed payload: as received (extra keys kept) with the two arrays defaulted to []. */
export interface AssessmentPayload {
  indicator_specification_id: string;
  parameter_assessments: ParameterAssessment[];
  [extra: string]: unknown;
}

export interface ComputeRequest {
  modelVersion: string;
  /** Exactly what the caller sent: this is what the core validates. */
  receivedPayload: Record<string, unknown>;
  payload: AssessmentPayload;
}

/** One problem of an invalid body, located by a JSONPath into the request body. */
export interface RequestProblem {
  path: string;
  message: string;
}

/** Collects every problem (not just the first) so the caller can fix the body in one round. */
export function parseComputeRequest(body: unknown): ComputeRequest {
  const problems: RequestProblem[] = [];
  const request = parse(body, problems);
  if (request === null || problems.length > 0) {
    throw new DomainError('INVALID_REQUEST_BODY', 'the compute request body is invalid', { problems });
  }
  return request;
}

function parse(body: unknown, problems: RequestProblem[]): ComputeRequest | null {
  if (!isJsonObject(body)) {
    problems.push({ path: '$', message: 'must be an object' });
    return null;
  }
  const modelVersion = parseModelVersion(body.model_version, problems);
  if (!isJsonObject(body.payload)) {
    problems.push({ path: '$.payload', message: 'is required and must be an object' });
    return null;
  }
  return { modelVersion, receivedPayload: body.payload, payload: parsePayload(body.payload, problems) };
}

function parseModelVersion(value: unknown, problems: RequestProblem[]): string {
  if (value === undefined || value === null) return DEFAULT_MODEL_VERSION;
  if (typeof value === 'string' && isVersionSegment(value)) return value;
  problems.push({
    path: '$.model_version',
    message: 'must be null or a version string (non-empty, no whitespace, no `/` or `\\`, not `.` or `..`)',
  });
  return DEFAULT_MODEL_VERSION;
}

function parsePayload(payload: JsonObject, problems: RequestProblem[]): AssessmentPayload {
  const path = '$.payload';
  requireString(payload, 'indicator_specification_id', path, problems);
  const assessments = optionalArray(payload, 'parameter_assessments', path, problems);
  return {
    ...payload,
    indicator_specification_id: payload.indicator_specification_id as string,
    parameter_assessments: assessments.map((item, i) => parseParameterAssessment(item, `${path}.parameter_assessments[${i}]`, problems)),
  };
}

function parseParameterAssessment(item: unknown, path: string, problems: RequestProblem[]): ParameterAssessment {
  if (!isJsonObject(item)) {
    problems.push({ path, message: 'must be an object' });
    return { parameter_id: '', question_answers: [] };
  }
  requireString(item, 'parameter_id', path, problems);
  const answers = optionalArray(item, 'question_answers', path, problems);
  return {
    ...item,
    parameter_id: item.parameter_id as string,
    question_answers: answers.map((answer, i) => parseQuestionAnswer(answer, `${path}.question_answers[${i}]`, problems)),
  };
}

function parseQuestionAnswer(item: unknown, path: string, problems: RequestProblem[]): QuestionAnswer {
  if (!isJsonObject(item)) {
    problems.push({ path, message: 'must be an object' });
    return { question_id: '' };
  }
  requireString(item, 'question_id', path, problems);
  const selected = item.selected_answer_id;
  if (selected !== undefined && selected !== null && typeof selected !== 'string') {
    problems.push({ path: `${path}.selected_answer_id`, message: 'must be a string or null' });
  }
  return { ...item, question_id: item.question_id as string };
}

function requireString(item: JsonObject, key: string, path: string, problems: RequestProblem[]): void {
  if (typeof item[key] !== 'string') problems.push({ path: `${path}.${key}`, message: 'is required and must be a string' });
}

/** Absent means []; present but not an array is a problem (and yields [] so parsing can go on). */
function optionalArray(item: JsonObject, key: string, path: string, problems: RequestProblem[]): unknown[] {
  const value = item[key];
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  problems.push({ path: `${path}.${key}`, message: 'must be an array' });
  return [];
}
