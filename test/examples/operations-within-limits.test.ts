import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kind, type OperationDefinitionNode, parse, print } from 'graphql';
import { projectPath } from '../../kernel/project.js';
import { graphMdExamples } from '../support/graph-examples.js';
import { sharedDataAvailable, sharedPath } from '../support/shared-data.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 24: every operation of the frontend kit (examples/frontend/operations) and every runnable
 * example of docs/GRAPH.md runs within the default limits on the published 0.0.4 model, read in place
 * from ../shared/data, with the settings `npm run serve` starts the system with (in the jest process:
 * an operation's price does not depend on the process layout). "Every version with its
 * questionnaire", refused before at a cost of 111,110, among them.
 */
const SHARED = ['re-indicators-specification/0.0.4', 're-indicators-calculation/compute-request-recycle-battery.json'];
const describeShared = SHARED.every((relative) => sharedDataAvailable(relative)) ? describe : describe.skip;

const MODEL = { model: 're-indicators-specification', version: '0.0.4' };
const KIT = projectPath('examples', 'frontend', 'operations');

/** Each operation of the kit with its own document (the fragments of its file), by name. */
const kitOperations = readdirSync(KIT)
  .filter((file) => file.endsWith('.graphql'))
  .flatMap((file) => parse(readFileSync(path.join(KIT, file), 'utf8')).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d as OperationDefinitionNode] : [])));

describeShared("the kit's and GRAPH.md's operations on the published 0.0.4 model, under the default limits", () => {
  let sut: TestSystem;
  const payload = () => JSON.parse(readFileSync(sharedPath('re-indicators-calculation', 'compute-request-recycle-battery.json'), 'utf8')).payload;
  const graphql = (query: string, variables: Record<string, unknown> = {}) => call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables } });

  beforeAll(async () => {
    const published = (name: string) => pathToFileURL(sharedPath('re-indicators-specification', '0.0.4', name)).href;
    // As in a deployment (test/subgraphs/indicators/published-artifacts-compute.test.ts): no root_class.
    const catalog = [{ ...MODEL, schema_url: published('schema.json'), shacl_url: published('shacl.ttl'), owl_url: published('model.ttl') }];
    sut = await startInProcessSystem({
      ...NO_AUTH,
      REGISTRY_CATALOG_JSON: JSON.stringify(catalog),
      REGISTRY_ALLOW_FILE_URLS: 'true',
      ARTIFACT_BASE_URL_TEMPLATE: `${pathToFileURL(sharedPath('re-indicators-specification')).href}/{version}/`,
    });
  }, 120_000);

  /** A question of the published questionnaire, as Questionnaire answered it (the order below). */
  let question: { id: string; questionId: string };
  /** The variables a screen sends with each kit operation. */
  const KIT_VARIABLES: Record<string, () => Record<string, unknown>> = {
    Questionnaire: () => MODEL,
    QuestionById: () => ({ id: question.id }),
    CheckAssessment: () => ({ ...MODEL, payload: payload() }),
    ScoreAssessment: () => ({ input: { modelVersion: MODEL.version, payload: payload() } }),
    SaveAssessment: () => ({ input: { ...MODEL, payload: payload(), idempotencyKey: 'kit-limits-1' } }),
    // After SaveAssessment (the order below): the screen's page, then the largest one.
    MyRecords: () => ({ first: 1000, filter: null }),
  };
  const ORDER = ['Questionnaire', 'QuestionById', 'CheckAssessment', 'ScoreAssessment', 'SaveAssessment', 'MyRecords'];

  test('the kit names the operations this test runs', () => {
    expect(kitOperations.map((o) => o.name!.value).sort()).toEqual([...ORDER].sort());
  });

  test.each(ORDER)('kit: %s', async (name) => {
    const operation = kitOperations.find((o) => o.name!.value === name)!;
    const answer = await graphql(print(operation), KIT_VARIABLES[name]!());
    expect({ status: answer.status, errors: answer.json.errors }).toEqual({ status: 200, errors: undefined });
    if (name === 'Questionnaire') {
      expect(answer.json.data.modelVersion.indicators).toHaveLength(11);
      question = answer.json.data.modelVersion.indicators.at(-1).parameters[0].questions[0];
    }
    if (name === 'QuestionById') expect(answer.json.data.node).toMatchObject({ id: question.id, questionId: question.questionId });
    if (name === 'MyRecords') expect(answer.json.data.records.edges[0].node.indicatorResult.status).toBe('COMPUTED');
  });

  test.each(graphMdExamples().map((example) => [example.name, example.document] as const))('GRAPH.md: %s', async (name, document) => {
    const variables: Record<string, Record<string, unknown>> = { ScoredRecords: MODEL, QuestionById: { id: question.id } };
    const answer = await graphql(print(document), variables[name] ?? {});
    expect({ status: answer.status, errors: answer.json.errors }).toEqual({ status: 200, errors: undefined });
    if (name === 'EveryQuestionnaire') expect(answer.json.data.modelVersions[0].indicators).toHaveLength(11);
    if (name === 'QuestionById') expect(answer.json.data.node.questionId).toBe(question.questionId);
  });
});
