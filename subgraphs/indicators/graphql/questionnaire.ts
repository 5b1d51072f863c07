import { DomainError } from '../../../kernel/errors.js';
import { type QuestionnaireType, globalId, parseGlobalId, questionnaireItemKey, versionOfQuestionnaireItem } from '../../../kernel/graphql/global-id.js';
import type { IndicatorService } from '../domain/indicator-service.js';
import type { AnswerOption, CalculationArtifact, IndicatorSpecification, ParameterSpecification, QuestionSpecification } from '../domain/calculation-artifact.js';
import type { IndicatorAnswerGql, IndicatorGql, IndicatorParameterGql, IndicatorQuestionGql } from './types.js';

/** A version's questionnaire as `ModelVersion.indicators` answers it, and every item of it by `id`, for `node(id:)`. */
export interface Questionnaire {
  readonly indicators: readonly IndicatorGql[];
  readonly items: ReadonlyMap<string, QuestionnaireItem>;
}

export type QuestionnaireItem = IndicatorGql | IndicatorParameterGql | IndicatorQuestionGql | IndicatorAnswerGql;

/**
 * Built once per parsed artifact (the artifact source keeps one while it is fresh) and shared by
 * every request, as the artifact is: plain objects under their schema names, answered by
 * graphql-js's default resolver like the questionnaire's other types.
 */
const built = new WeakMap<CalculationArtifact, Questionnaire>();

export function questionnaireOf(artifact: CalculationArtifact): Questionnaire {
  let questionnaire = built.get(artifact);
  if (!questionnaire) built.set(artifact, (questionnaire = new QuestionnaireBuilder(artifact.modelVersion).build(artifact)));
  return questionnaire;
}

/**
 * The item of `type` with this id (the `nodeRef` of the models subgraph's stub), or null when no
 * questionnaire holds one: an id of another type or not the graph's, a version without a published
 * calculation artifact, an item its version's questionnaire does not have (any more).
 */
export async function questionnaireItem(service: Pick<IndicatorService, 'calculationArtifact'>, type: string, id: string): Promise<QuestionnaireItem | null> {
  const own = parseGlobalId(id);
  const version = own?.type === type ? versionOfQuestionnaireItem(own.key) : null;
  if (version === null) return null;
  try {
    return questionnaireOf(await service.calculationArtifact(version)).items.get(id) ?? null;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'CALCULATION_ARTIFACT_NOT_FOUND') return null;
    throw error;
  }
}

/** A path of local keys; a key its siblings repeat is followed by how many came before it, so that each item has a path of its own. */
type ItemPath = ReadonlyArray<string | number>;

class QuestionnaireBuilder {
  private readonly items = new Map<string, QuestionnaireItem>();

  constructor(private readonly version: string) {}

  build(artifact: CalculationArtifact): Questionnaire {
    const indicators = withPaths([...artifact.indicators.values()], [], (indicator) => indicator.id).map(([indicator, path]) => this.indicator(indicator, path));
    return { indicators, items: this.items };
  }

  private indicator(indicator: IndicatorSpecification, path: ItemPath): IndicatorGql {
    const parameters = withPaths(indicator.parameters, path, (parameter) => parameter.id).map(([parameter, at]) => this.parameter(parameter, at));
    const { indicatorType, productCategory } = indicator;
    return this.item('Indicator', path, { indicatorSpecificationId: indicator.id, indicatorType, productCategory, parameters });
  }

  private parameter(parameter: ParameterSpecification, path: ItemPath): IndicatorParameterGql {
    const questions = withPaths(parameter.questions, path, (question) => question.id).map(([question, at]) => this.question(question, at));
    const { name, weight, fixedScore } = parameter;
    return this.item('IndicatorParameter', path, { parameterId: parameter.id, name, weight, fixedScore, questions });
  }

  private question(question: QuestionSpecification, path: ItemPath): IndicatorQuestionGql {
    const answers = withPaths(question.answers, path, (answer) => answer.id).map(([answer, at]) => this.answer(answer, at));
    const { text, weight } = question;
    return this.item('IndicatorQuestion', path, { questionId: question.id, text, weight, answers });
  }

  private answer(answer: AnswerOption, path: ItemPath): IndicatorAnswerGql {
    return this.item('IndicatorAnswer', path, { answerId: answer.id, text: answer.text, score: answer.score });
  }

  private item<T extends QuestionnaireItem>(type: QuestionnaireType, path: ItemPath, fields: Omit<T, 'id' | 'nodeRef'>): T {
    const id = globalId(type, questionnaireItemKey(this.version, path));
    if (this.items.has(id)) {
      throw new DomainError('CALCULATION_ARTIFACT_ERROR', 'the calculation artifact is malformed', { path: path.join('/'), problem: 'two of its items have the same id' });
    }
    const item = { id, nodeRef: id, ...fields } as T;
    this.items.set(id, item);
    return item;
  }
}

/** Each child with its path: the parent's, then its key, then, for a key an earlier sibling has, how many siblings had it before. */
function withPaths<T>(children: readonly T[], parent: ItemPath, keyOf: (child: T) => string): Array<[T, ItemPath]> {
  const seen = new Map<string, number>();
  return children.map((child) => {
    const key = keyOf(child);
    const before = seen.get(key) ?? 0;
    seen.set(key, before + 1);
    return [child, before === 0 ? [...parent, key] : [...parent, key, before]];
  });
}
