import { readFileSync, readdirSync } from 'node:fs';
import { Supergraph } from '@apollo/federation-internals';
import { type DocumentNode, type GraphQLSchema, Kind, type OperationDefinitionNode, parse, validate } from 'graphql';
import { readCommittedSupergraph } from '../../../gateway/committed-supergraph.js';
import { ENTITY_LOOKUP_WEIGHT, type OperationCost, operationCost } from '../../../pipeline/limits/cost.js';
import { DemandDirectives, declareDemand } from '../../../pipeline/limits/demand-directives.js';
import { fragmentsOf } from '../../../pipeline/limits/measure.js';
import { projectPath } from '../../../kernel/project.js';
import { subgraphSchemaForComposition } from '../../../subgraphs/index.js';
import { graphMdExamples } from '../../support/graph-examples.js';

/**
 * Issue 24: the cost of the graph's own operations under the directives its subgraphs declare, read
 * as the gateway reads them (the API schema @apollo/gateway builds, the supergraph's @cost and
 * @listSize) and as a subgraph port reads its own. The figures the defaults (GRAPHQL_MAX_COST 50,000)
 * are held against; test/security/graphql-limits.test.ts sends the hostile ones to a running server.
 */
let api: GraphQLSchema;
beforeAll(async () => {
  const supergraphSdl = await readCommittedSupergraph();
  api = Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();
  declareDemand(api, DemandDirectives.fromDocument(parse(supergraphSdl)));
});

function costIn(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}, name?: string): OperationCost {
  expect(validate(schema, document)).toEqual([]);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && (!name || d.name?.value === name))!;
  return operationCost({ operation, fragments: fragmentsOf(document), schema, variables });
}
const cost = (query: string, variables: Record<string, unknown> = {}) => costIn(api, parse(query), variables);

const KIT = projectPath('examples', 'frontend', 'operations');
const kitOperations = readdirSync(KIT)
  .filter((file) => file.endsWith('.graphql'))
  .flatMap((file) => {
    const document = parse(readFileSync(`${KIT}/${file}`, 'utf8'));
    return document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [[d.name!.value, document] as const] : []));
  });

describe("the frontend kit's operations, at the page sizes its screens ask for", () => {
  const KIT_COSTS: Record<string, [Record<string, unknown>, number]> = {
    // first × (edge 1 + node 1 + modelVersion 1 + indicatorResult 31) + pageInfo 1 + the connection 1.
    MyRecords: [{ first: 20 }, 682],
    // 1 + 11 indicators × (1 + 6 parameters × (1 + 6 questions × (1 + 6 answers))).
    Questionnaire: [{ model: 're-indicators-specification', version: '0.0.4' }, 2850],
    // 1 + validation 1 + results (10, undeclared) × (1 + violations 10 × 1).
    CheckAssessment: [{ model: 'm', version: 'v', payload: {} }, 112],
    ScoreAssessment: [{ input: {} }, 13],
    SaveAssessment: [{ input: {} }, 3],
    // The node 1 + its answers 6 × 1.
    QuestionById: [{ id: 'x' }, 7],
  };
  test.each(kitOperations)('%s', (name, document) => {
    const [variables, expected] = KIT_COSTS[name]!;
    expect(costIn(api, document, variables, name).cost).toBe(expected);
  });

  test('MyRecords at the largest page (first: 1000) stays within the default limit', () => {
    const [, document] = kitOperations.find(([name]) => name === 'MyRecords')!;
    expect(costIn(api, document, { first: 1000 }, 'MyRecords').cost).toBe(34_002);
  });
});

describe('what the defaults let through and what they refuse (GRAPHQL_MAX_COST 50,000)', () => {
  const QUESTIONNAIRE = 'indicatorSpecifications { id parameters { id questions { id answers { id } } } }';
  test.each([
    // Refused before at 111,110 (10 per list level): every version with its questionnaire.
    [`{ modelVersions { model version ${QUESTIONNAIRE} } }`, {}, 28_500, 'modelVersions.indicatorSpecifications.parameters.questions.answers'],
    // A records page without `first` is the resolver's default page, 100 records, not 10.
    ['{ records { nodes { id payload } } }', {}, 3_101, 'records.nodes.payload'],
    ['{ records(first: 1000) { nodes { payload } } }', {}, 31_001, 'records.nodes.payload'],
    ['{ records(first: 1000) { totalCount pageInfo { hasNextPage } } }', {}, 2, 'records.pageInfo'],
    [
      '{ modelVersion(model: "m", version: "v") { s: artifact(kind: SCHEMA) { content } h: artifact(kind: SHACL) { content } o: artifact(kind: OWL) { content } } }',
      {},
      30_004,
      'modelVersion.s.content',
    ],
  ])('%s', (query, variables, expected, path) => {
    expect(cost(query, variables)).toEqual({ cost: expected, path: path.split('.') });
  });

  test.each([
    // Red team, issue 24: records of records of records, no `first` (200 after 30.8 s, 14.3 MB).
    [
      '{ modelVersion(model: "m", version: "v") { records { nodes { modelVersion { records { nodes { modelVersion { records { nodes { id } } } } } } } } } }',
      {},
      1_030_302,
      'modelVersion.records.nodes.modelVersion.records.nodes.modelVersion.records.nodes',
    ],
    // 5 aliases of a page whose size is a variable's default (270 MB).
    [`query($n: Int = 1000) { ${[0, 1, 2, 3, 4].map((i) => `r${i}: records(first: $n) { nodes { payload } }`).join(' ')} }`, {}, 155_005, 'r0.nodes.payload'],
    // Artifact contents per record (218 MB).
    ['{ records(first: 100) { nodes { modelVersion { artifact(kind: OWL) { content } } } } }', {}, 1_000_301, 'records.nodes.modelVersion.artifact.content'],
    ['{ records { nodes { modelVersion { artifact(kind: OWL) { content } } } } }', {}, 1_000_301, 'records.nodes.modelVersion.artifact.content'],
    ['{ modelVersions { artifact(kind: OWL) { content } } }', {}, 100_020, 'modelVersions.artifact.content'],
    [`{ a: modelVersions { ${QUESTIONNAIRE} } b: modelVersions { ${QUESTIONNAIRE} } }`, {}, 57_000, 'a.indicatorSpecifications.parameters.questions.answers'],
  ])('refused: %s', (query, variables, expected, path) => {
    const measured = cost(query, variables);
    expect(measured).toEqual({ cost: expected, path: path.split('.') });
    expect(measured.cost).toBeGreaterThan(50_000);
  });
});

// Issue 37: Relay's refetch by id.
describe('node(id:) costs what its object does; nodes(ids:) that times the number of ids', () => {
  const QUESTION = '... on IndicatorQuestion { text answers { answerId score } }';
  test.each([
    [`{ node(id: "x") { id ${QUESTION} } }`, {}, 7],
    [`{ nodes(ids: ["x", "y", "z"]) { id ${QUESTION} } }`, {}, 21],
    // A single value for a list argument is a list of one.
    [`{ nodes(ids: "x") { id } }`, {}, 1],
    [`query($ids: [ID!]!) { nodes(ids: $ids) { id ${QUESTION} } }`, { ids: Array.from({ length: 250 }, (_, i) => `i${i}`) }, 1_750],
    [`query($ids: [ID!]! = ["a", "b"]) { nodes(ids: $ids) { id } }`, {}, 2],
  ])('%s', (query, variables, expected) => {
    expect(cost(query, variables).cost).toBe(expected);
  });
});

describe('a subgraph port reads the directives of its own schema', () => {
  test('`_entities` is as long as its representations (15,000 from the variables, each ENTITY_LOOKUP_WEIGHT)', async () => {
    const models = await subgraphSchemaForComposition('models');
    const representations = Array.from({ length: 15_000 }, (_, i) => ({ __typename: 'Record', id: `r${i}` }));
    const query = parse('query($r: [_Any!]!) { _entities(representations: $r) { ... on Record { id } } }');
    expect(costIn(models, query, { r: representations })).toEqual({ cost: 15_000 * ENTITY_LOOKUP_WEIGHT, path: ['_entities'] });
    expect(costIn(models, parse('{ records { nodes { payload } } }'))).toEqual({ cost: 3_101, path: ['records', 'nodes', 'payload'] });
  });
});

describe('the operations of docs/GRAPH.md cost what the page says', () => {
  const examples = graphMdExamples();
  test.each(examples.map((example) => [example.name, example] as const))('%s', (_name, { document, statedCost }) => {
    expect(costIn(api, document).cost).toBe(statedCost);
  });
  test('there are examples to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });
});
