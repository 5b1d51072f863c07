import { operationCost } from '../../gateway/pipeline/limits/cost.js';
import { operationOf, refusalOf } from './limit-harness.js';

describe('operation cost (GRAPHQL_MAX_COST)', () => {
  test.each([
    // An object field costs 1, a scalar 0.
    ['{ part(id: 1) { id name } }', 1],
    ['{ part(id: 1) { maker { name } } }', 2],
    // A list field costs its item's cost times 10 per list level.
    ['{ parts { id } }', 10],
    ['{ parts { maker { id } } }', 20],
    ['{ parts { parts { id } } }', 110],
    ['{ matrix { id } }', 100],
    // Fragments take their type condition's fields; unions and interfaces work the same way.
    ['{ node(id: 1) { ... on Part { parts { id } } } }', 11],
    ['{ things { ... on Part { maker { id } } ... on Maker { name } } }', 20],
    ['{ parts { ...P } part(id: 1) { ...P } } fragment P on Part { maker { id } }', 22],
    // Meta-fields are answered by the gateway.
    ['{ __typename __schema { types { name } } }', 0],
  ])('%s costs %d', (query, cost) => {
    expect(operationCost(operationOf(query))).toBe(cost);
  });

  // Issue 13: a list is as long as the request asks (`records(filter: {limit: 1000})` counted 10 before).
  test.each([
    ['{ page(first: 50) { id maker { id } } }', {}, 100],
    ['{ page(last: 3) { parts { id } } }', {}, 33],
    ['query($n: Int) { page(first: $n) { maker { id } } }', { n: 1000 }, 2000],
    ['query($n: Int) { page(first: $n) { maker { id } } }', { n: null }, 20],
    ['{ search { name } }', {}, 10],
    // Only an argument of its own sizes a list, not a member of an object argument.
    ['{ search(filter: { limit: 1000 }) { name } }', {}, 10],
    // A free-form JSON value costs ten fields: 1,000 items with it cost 11,000.
    ['{ page(first: 1000) { data } }', {}, 11000],
    ['{ part(id: 1) { data } }', {}, 11],
  ])('%s with %j costs %d', (query, variables, cost) => {
    expect(operationCost(operationOf(query, variables))).toBe(cost);
  });

  // The new graph's lists are cursor connections: `records(first: 1000) { nodes { payload } }` costs what
  // `records(filter: {limit: 1000}) { payload }` did (plus 1, the connection object).
  test.each([
    // The connection's `first`/`last` sizes its `edges` and `nodes`; `pageInfo` and `totalCount` are not multiplied.
    ['{ partPage(first: 1000) { nodes { data } } }', {}, 11001],
    ['{ partPage(first: 1000) { edges { node { data } } } }', {}, 12001],
    ['{ partPage(first: 1000) { edges { cursor node { id } } nodes { id } } }', {}, 3001],
    ['{ partPage(last: 3) { edges { cursor node { id } } } }', {}, 7],
    ['{ partPage(first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } }', {}, 52],
    ['{ partPage(first: 1000) { totalCount pageInfo { hasNextPage } } }', {}, 2],
    ['query($n: Int) { partPage(first: $n, after: "x") { nodes { maker { id } } } }', { n: 1000 }, 2001],
    // No size given: ESTIMATED_LIST_SIZE, as for any list.
    ['{ partPage { nodes { id } } }', {}, 11],
    ['query($n: Int) { partPage(first: $n) { nodes { id } } }', {}, 11],
    // Through fragments on the connection type, each spread sized by its own connection field.
    ['{ partPage(first: 20) { ... on PartConnection { nodes { id } } ... { edges { cursor } } } }', {}, 41],
    ['{ a: partPage(first: 100) { ...C } b: partPage(first: 5) { ...C } } fragment C on PartConnection { nodes { id } pageInfo { endCursor } }', {}, 109],
    // A connection inside a page: its own size, times its parent's.
    ['{ partPage(first: 10) { nodes { related(first: 100) { nodes { id } } } } }', {}, 1021],
    ['{ parts { related { nodes { id } } } }', {}, 120],
  ])('%s with %j costs %d', (query, variables, cost) => {
    expect(operationCost(operationOf(query, variables))).toBe(cost);
  });

  test('a fragment bomb inside a connection is measured at once (each fragment walked once per page size)', () => {
    const fragments = ['fragment F0 on PartConnection { nodes { id } }'];
    for (let i = 1; i <= 40; i++) fragments.push(`fragment F${i} on PartConnection { ...F${i - 1} ...F${i - 1} }`);
    const started = performance.now();
    expect(operationCost(operationOf(`{ a: partPage(first: 1000) { ...F40 } b: partPage(first: 7) { ...F40 } } ${fragments.join(' ')}`))).toBe(2 + 2 ** 40 * 1007);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test('15 aliases of a connection page of 1,000 payloads are refused with QUERY_TOO_COMPLEX', () => {
    const aliases = Array.from({ length: 15 }, (_, i) => `p${i}: partPage(first: 1000) { nodes { data } }`).join(' ');
    expect(refusalOf({ maxCost: 50000 }, `{ ${aliases} }`)).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { limit: 50000, actual: 165015 } });
    expect(refusalOf({ maxCost: 50000 }, `{ ${aliases.replaceAll('first: 1000', 'first: 100')} }`)).toBeUndefined();
  });

  test('an operation over the limit is refused with QUERY_TOO_COMPLEX (400)', () => {
    expect(refusalOf({ maxCost: 100 }, '{ parts { parts { id } } }')).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { limit: 100, actual: 110 } });
  });

  test('an operation within the limit runs', () => {
    expect(refusalOf({ maxCost: 100 }, '{ parts { maker { id } } }')).toBeUndefined();
  });
});
