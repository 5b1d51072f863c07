import type { GraphRequest } from './client.js';
import {
  type AssessmentInput,
  CheckAssessmentDocument,
  MyRecordsDocument,
  type MyRecordsQuery,
  QuestionnaireDocument,
  type QuestionnaireQuery,
  SaveAssessmentDocument,
  ScoreAssessmentDocument,
} from '../generated/graphql.js';

/** A form to render: one section per parameter, one choice per question. */
export async function questionnaireForm(request: GraphRequest, model: string, version: string) {
  const { modelVersion } = await request(QuestionnaireDocument, { model, version });
  return modelVersion && formOf(modelVersion);
}

/**
 * The form of a model version's questionnaire, whichever client fetched it (client.ts, apollo.ts,
 * urql.ts). Values are the model's keys (`questionId`, `answerId`), which an assessment sends;
 * the objects' `id`s are for client caches and `node(id:)`.
 */
export function formOf(modelVersion: NonNullable<QuestionnaireQuery['modelVersion']>) {
  return modelVersion.indicators.map((indicator) => ({
    indicator: indicator.indicatorSpecificationId,
    category: indicator.productCategory,
    sections: indicator.parameters.map((parameter) => ({
      parameterId: parameter.parameterId,
      title: parameter.name ?? parameter.parameterId,
      weight: parameter.weight,
      questions: parameter.questions.map((question) => ({
        id: question.questionId,
        label: question.text ?? question.questionId,
        choices: question.answers.map((answer) => ({ value: answer.answerId, label: answer.text ?? answer.answerId, score: answer.score })),
      })),
    })),
  }));
}

export type QuestionnaireForm = ReturnType<typeof formOf>;

/** Every record I may read, newest first, a page at a time, as table rows. */
export async function* myRecordRows(request: GraphRequest, pageSize = 20) {
  let after: string | null = null;
  for (;;) {
    const { records }: MyRecordsQuery = await request(MyRecordsDocument, { first: pageSize, after, filter: null });
    for (const { node } of records.edges) {
      yield {
        id: node.id,
        stored: new Date(node.createdAt),
        model: `${node.modelVersion.label ?? node.modelVersion.model} ${node.modelVersion.version}`,
        score: node.indicatorResult?.totalScore ?? null,
        of: records.totalCount,
        pages: Math.ceil(records.totalCount / pageSize),
      };
    }
    if (!records.pageInfo.hasNextPage) return;
    after = records.pageInfo.endCursor;
  }
}

/** What a user filled in: for each parameter, the answer chosen for each question. */
export interface AssessmentForm {
  id: string;
  /** When the assessment was made (ISO 8601): part of the record, so a retry sends the same one. */
  assessedAt: string;
  indicatorSpecificationId: string;
  productCategory: string;
  answers: Record<string, Record<string, string | null>>;
}

/** The form as the typed input the graph scores. */
export function assessmentInput(form: AssessmentForm): AssessmentInput {
  return {
    id: form.id,
    timestamp: form.assessedAt,
    indicatorSpecificationId: form.indicatorSpecificationId,
    productInfo: { productCategory: form.productCategory },
    parameterAssessments: Object.entries(form.answers).map(([parameterId, questions]) => ({
      parameterId,
      questionAnswers: Object.entries(questions).map(([questionId, selectedAnswerId]) => ({ questionId, selectedAnswerId })),
    })),
  };
}

/** The same form as the model's own JSON, which is what is validated and stored as a record. */
export function assessmentPayload(input: AssessmentInput): Record<string, unknown> {
  return {
    id: input.id,
    timestamp: input.timestamp,
    indicator_specification_id: input.indicatorSpecificationId,
    product_info: { product_category: input.productInfo?.productCategory },
    parameter_assessments: (input.parameterAssessments ?? []).map((parameter) => ({
      parameter_id: parameter.parameterId,
      question_answers: (parameter.questionAnswers ?? []).map((answer) => ({ question_id: answer.questionId, selected_answer_id: answer.selectedAnswerId })),
    })),
  };
}

/**
 * Submit an assessment: check it against its model version (the report tells the user what to
 * fix), then score it and save it as a record. A retry with the same idempotency key saves nothing twice.
 */
export async function submitAssessment(request: GraphRequest, model: string, version: string, form: AssessmentForm, idempotencyKey: string) {
  const assessment = assessmentInput(form);
  const payload = assessmentPayload(assessment);
  const checked = await request(CheckAssessmentDocument, { model, version, payload });
  if (checked.modelVersion === null) return { saved: null, score: null, problems: [`${model} ${version} is not in the registry`] };
  const report = checked.modelVersion.validation;
  if (!report.passed) {
    return { saved: null, score: null, problems: report.results.flatMap((result) => result.violations.map((v) => `${result.kind} ${v.severity} ${v.path}: ${v.message}`)) };
  }
  const { computeIndicators } = await request(ScoreAssessmentDocument, { input: { modelVersion: version, assessment } });
  const { createRecord } = await request(SaveAssessmentDocument, { input: { model, version, payload, idempotencyKey } });
  return { saved: createRecord.record.id, score: computeIndicators.result.totalScore, problems: [] as string[] };
}
