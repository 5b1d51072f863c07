import { getIntrospectionQuery, graphql, printSchema } from 'graphql';
import { SUBGRAPH_NAMES } from '../../subgraphs/names.js';
import { subgraphSchemaForComposition } from '../../subgraphs/index.js';
import { miniModelHost } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * A value that fits a scalar only by name (the gateway knows JSON and JSONObject by name; their rules
 * live in the subgraph) is the client's mistake, named BAD_USER_INPUT like any other input error, not
 * an INTERNAL_ERROR the gateway would hide.
 */
let host: ArtifactHost;
let sut: TestSystem;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  sut = await startInProcessSystem({ ...mini.env, ...NO_AUTH });
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
});

const CREATE = 'mutation($input: CreateRecordInput!) { createRecord(input: $input) { record { id } } }';

test.each([
  ['a string where the payload object goes', { model: 'mini', version: '1.0', payload: 'not an object', idempotencyKey: 'k-1' }],
  ['an array where the payload object goes', { model: 'mini', version: '1.0', payload: [1, 2], idempotencyKey: 'k-2' }],
])('%s: BAD_USER_INPUT with the reason, nothing stored', async (_what, input) => {
  const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: CREATE, variables: { input } } });
  expect(answer.json.data).toBeNull();
  expect(answer.json.errors).toEqual([{ message: expect.stringContaining('JSONObject'), extensions: { code: 'BAD_USER_INPUT' } }]);
  const count = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: '{ records { totalCount } }' } });
  expect(count.json.data.records.totalCount).toBe(0);
});

test.each([
  ['a DateTime that is not an instant', '{ records(filter: { conditions: [{ field: CREATED_AT, operator: GT, value: { dateTime: "yesterday" } }] }) { nodes { id } } }', 'DateTime'],
  ['an array where a JSONObject goes', '{ modelVersion(model: "mini", version: "1.0") { validation(payload: [1]) { passed } } }', 'JSONObject'],
])('%s, written in the query: GRAPHQL_VALIDATION_FAILED naming the scalar', async (_what, query, scalar) => {
  const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query } });
  expect(answer.json.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(scalar), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
});

test('an order key without its direction lists in ascending order, the default the schema states', async () => {
  for (const id of ['b', 'c', 'a']) {
    const stored = await call(sut.url('records'), 'POST', '/records', { body: { id: `order-${id}`, model: 'm', version: '1', payload: {} }, headers: { 'idempotency-key': `order-${id}` } });
    expect(stored.status).toBe(200);
  }
  const listed = async (order: string) => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: `{ records(orderBy: [${order}]) { nodes { id } } }` } });
    expect(answer.json.errors).toBeUndefined();
    return answer.json.data.records.nodes.map((node: { id: string }) => node.id);
  };
  expect(await listed('{ field: ID }')).toEqual(['order-a', 'order-b', 'order-c']);
  expect(await listed('{ field: ID, direction: DESC }')).toEqual(['order-c', 'order-b', 'order-a']);
});

test.each(SUBGRAPH_NAMES)('the %s subgraph answers introspection, enum defaults by their names', async (name) => {
  const schema = await subgraphSchemaForComposition(name);
  expect((await graphql({ schema, source: getIntrospectionQuery() })).errors).toBeUndefined();
  if (name === 'models') expect(printSchema(schema)).toContain('direction: OrderDirection! = ASC');
});
