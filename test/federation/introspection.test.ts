import { getIntrospectionQuery } from 'graphql';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { localProfileEnv } from '../subgraphs/indicators/local-profile.js';

/**
 * Introspection at `/graphql` with GRAPHQL_INTROSPECTION=true (GraphiQL's schema fetch, a client's
 * code generation): answered by the project's executor over the API schema
 * (gateway/executor/introspection.ts), the same text as @apollo/gateway's own executor gives (a
 * second system in this process whose gateway leaves every operation to it, the reference), and
 * without loading @apollo/gateway, whose load is a log line: an operation it still answers (a
 * response name of `Object.prototype` beside data) shows that line.
 */
const LOADED = "@apollo/gateway loaded, for the operations the project's executor declines";

let sut: TestSystem;
/** @apollo/gateway planning and executing everything: the reference. */
let stock: TestSystem;
const ask = (system: TestSystem, query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  call(system.url('gateway'), 'POST', '/graphql', { body: { query, variables, operationName } });

beforeAll(async () => {
  const env = { ...NO_AUTH, ...localProfileEnv(), GRAPHQL_INTROSPECTION: 'true' };
  [sut, stock] = await Promise.all([startInProcessSystem(env, { logs: true }), startInProcessSystem(env, { stockExecutorOnly: true })]);
}, 180_000);
afterAll(async () => {
  await Promise.all([sut?.stop(), stock?.stop()]);
});

const GRAPHIQL = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });

const cases: Array<{ name: string; query: string; variables?: Record<string, unknown>; operationName?: string }> = [
  { name: "GraphiQL's introspection query", query: GRAPHIQL, operationName: 'IntrospectionQuery' },
  { name: "graphql-js's default introspection query", query: getIntrospectionQuery() },
  { name: 'one type by a variable', query: 'query T($name: String!) { __type(name: $name) { name kind fields { name type { name kind ofType { name } } } } }', variables: { name: 'ModelVersion' } },
  { name: 'a type the API schema does not have', query: '{ __type(name: "join__Graph") { name } }' },
  {
    name: 'through a named fragment and an inline one, aliased, with __typename',
    query: '{ ...Root ... on Query { q: __type(name: "Query") { name } } } fragment Root on Query { kind: __typename s: __schema { queryType { name } mutationType { name } } }',
  },
  { name: '@include and @skip on a variable', query: 'query S($full: Boolean!) { __schema { types @include(if: $full) { name } queryType @skip(if: $full) { name } } }', variables: { full: false } },
  { name: 'a required variable missing', query: 'query T($name: String!) { __type(name: $name) { name } }' },
  { name: '__typename alone, of a mutation', query: 'mutation { __typename }' },
  { name: 'a response name of Object.prototype', query: '{ constructor: __typename __proto__: __schema { queryType { name } } }' },
];

test.each(cases)('$name: the same answer as @apollo/gateway', async ({ query, variables, operationName }) => {
  const [answer, reference] = await Promise.all([ask(sut, query, variables, operationName), ask(stock, query, variables, operationName)]);
  expect(answer.status).toBe(reference.status);
  expect(answer.text).toBe(reference.text);
});

test('as a client sees it: the schema, and @apollo/gateway not loaded', async () => {
  const answer = await ask(sut, GRAPHIQL, {}, 'IntrospectionQuery');
  expect(answer.status).toBe(200);
  expect(answer.json.data.__schema.queryType).toEqual({ name: 'Query', kind: 'OBJECT' });
  expect(answer.json.data.__schema.types.map((type: { name: string }) => type.name)).toContain('ModelVersion');
  expect(sut.logs.filter((line) => line.msg === LOADED)).toEqual([]);
});

test('introspection beside data still goes to @apollo/gateway, loaded then, once', async () => {
  const query = '{ constructor: modelVersions { version } __schema { queryType { name } } }';
  for (let i = 0; i < 2; i++) {
    const [answer, reference] = await Promise.all([ask(sut, query), ask(stock, query)]);
    expect(answer.text).toBe(reference.text);
  }
  expect(JSON.parse((await ask(sut, query)).text)).toEqual({ data: { constructor: [{ version: '0.0.4' }], __schema: { queryType: { name: 'Query' } } } });
  expect(sut.logs.filter((line) => line.msg === LOADED)).toHaveLength(1);
});
