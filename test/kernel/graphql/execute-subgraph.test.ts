import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLError, parse } from 'graphql';
import { executeSubgraph } from '../../../kernel/graphql/execute-subgraph.js';
import { FEDERATION_LINK } from '../../federation/tiny-federation.js';

const registryDown = new GraphQLError('the registry is unavailable', { extensions: { code: 'REGISTRY_UNAVAILABLE' } });

/**
 * executeSubgraph runs an operation with graphql-js the first time and compiled (graphql-jit) from
 * the second on: every answer, errors and partial data included, must read the same either way.
 */
const schema = buildSubgraphSchema({
  typeDefs: parse(`${FEDERATION_LINK}
    type Query { questionnaire(model: String!): [Indicator!]!, broken: String, brokenRequired: Tally }
    type Tally { count: Int! }
    type Indicator @key(fields: "id") { id: ID!, weight: Float, questions: [Question!]! }
    type Question { id: ID!, answers: [Answer!]! }
    type Answer { id: ID!, score: Float! }`),
  resolvers: {
    Query: {
      questionnaire: (_: unknown, { model }: { model: string }) =>
        Array.from({ length: 3 }, (_, i) => ({ id: `${model}-${i}`, weight: i / 2, questions: [{ id: `q${i}`, answers: [{ id: 'a', score: i }] }] })),
      broken: () => {
        throw registryDown;
      },
      brokenRequired: () => ({ count: null }),
    },
    Indicator: { __resolveReference: ({ id }: { id: string }) => ({ id, weight: 1, questions: [] }) },
  },
});

async function threeTimes(query: string, variables: Record<string, unknown> = {}, operationName?: string) {
  const document = parse(query);
  const run = () => executeSubgraph({ schema, document, variableValues: variables, operationName, contextValue: {} });
  const answers = [await run(), await run(), await run()];
  return answers.map((answer) => JSON.parse(JSON.stringify(answer)));
}

test('a questionnaire reads the same executed and compiled, and the compiled run answers plain objects', async () => {
  const document = parse('query Q($model: String!) { questionnaire(model: $model) { id weight questions { id answers { id score } } } }');
  const run = () => executeSubgraph({ schema, document, variableValues: { model: 'm' }, contextValue: {} });
  const first = await run();
  const second = await run();
  expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  expect((first.data as { questionnaire: unknown[] }).questionnaire).toHaveLength(3);
  expect(Object.getPrototypeOf(first.data)).toBeNull();
  expect(Object.getPrototypeOf(second.data)).toBe(Object.prototype);
});

test('errors, partial data and entity fetches read the same executed and compiled', async () => {
  for (const [query, variables] of [
    ['{ broken questionnaire(model: "x") { id } }', {}],
    ['{ brokenRequired { count } }', {}],
    ['query E($r: [_Any!]!) { _entities(representations: $r) { ... on Indicator { id weight } } }', { r: [{ __typename: 'Indicator', id: 'i1' }] }],
  ] as const) {
    const [first, ...compiled] = await threeTimes(query, variables);
    for (const answer of compiled) expect(answer).toEqual(first);
  }
  const [partial] = await threeTimes('{ broken questionnaire(model: "x") { id } }');
  expect(partial.errors).toEqual([expect.objectContaining({ message: 'the registry is unavailable', path: ['broken'], extensions: { code: 'REGISTRY_UNAVAILABLE' } })]);
});

test('a compiled run keeps the error its resolver threw, so the log line of a 5xx still names its cause', async () => {
  const document = parse('{ broken }');
  for (let run = 0; run < 3; run++) {
    const answer = await executeSubgraph({ schema, document, contextValue: {} });
    expect(answer.errors?.[0]?.originalError).toBe(registryDown);
  }
});

test('variables that do not fit are BAD_USER_INPUT with graphql-js wording, however often they come', async () => {
  const answers = await threeTimes('query Q($model: String!) { questionnaire(model: $model) { id } }', { model: 5 });
  for (const answer of answers) {
    expect(answer).toEqual({ errors: [{ message: 'Variable "$model" got invalid value 5; String cannot represent a non string value: 5', extensions: { code: 'BAD_USER_INPUT' } }] });
  }
});

test('an operation name the document does not define is the same error every time', async () => {
  const answers = await threeTimes('query A { broken } query B { broken }', {}, 'C');
  for (const answer of answers) expect(answer).toEqual({ errors: [expect.objectContaining({ message: 'Unknown operation named "C".' })] });
});
