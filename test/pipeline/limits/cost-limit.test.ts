import { ENTITY_LOOKUP_WEIGHT, operationCost } from '../../../pipeline/limits/cost.js';
import { operationLimits } from '../../../pipeline/operation-limits.js';
import type { Exchange } from '../../../pipeline/pipeline.js';
import { operationOf, refusalOf } from './limit-harness.js';

const costOf = (query: string, variables: Record<string, unknown> = {}) => operationCost(operationOf(query, variables)).cost;

describe("operation cost (GRAPHQL_MAX_COST), from the schema's @cost and @listSize", () => {
  test.each([
    // An object field costs 1, a scalar 0.
    ['{ part(id: 1) { id name } }', 1],
    ['{ part(id: 1) { maker { name } } }', 2],
    // A list field with no @listSize costs its item's cost times 10 per list level.
    ['{ parts { id } }', 10],
    ['{ parts { maker { id } } }', 20],
    ['{ parts { parts { id } } }', 110],
    ['{ matrix { id } }', 100],
    // Its declared assumed size instead.
    ['{ few { maker { id } } }', 6],
    // Fragments take their type condition's fields; unions and interfaces work the same way.
    ['{ node(id: 1) { ... on Part { parts { id } } } }', 11],
    ['{ things { ... on Part { maker { id } } ... on Maker { name } } }', 20],
    ['{ parts { ...P } part(id: 1) { ...P } } fragment P on Part { maker { id } }', 22],
    // @cost(weight:) on a field, or on its type, replaces the default weight.
    ['{ part(id: 1) { data } }', 11],
    ['{ part(id: 1) { blob } }', 51],
    // Meta-fields are answered by the gateway.
    ['{ __typename __schema { types { name } } }', 0],
  ])('%s costs %d', (query, cost) => {
    expect(costOf(query)).toBe(cost);
  });

  // Issue 13, then issue 24: a list is as long as its declared slicing arguments ask, literal or variable.
  test.each([
    ['{ page(first: 50) { id maker { id } } }', {}, 100],
    ['{ page(last: 3) { parts { id } } }', {}, 33],
    ['query($n: Int) { page(first: $n) { maker { id } } }', { n: 1000 }, 2000],
    // A variable left out takes its default (issue 24: defaults were ignored, and 1,000 cost as 10).
    ['query($n: Int = 1000) { page(first: $n) { maker { id } } }', {}, 2000],
    ['query($n: Int = 1000) { page(first: $n) { maker { id } } }', { n: 2 }, 4],
    // An explicit null is no size: the declared assumed size, else 10.
    ['query($n: Int = 1000) { page(first: $n) { maker { id } } }', { n: null }, 20],
    // Only a declared slicing argument sizes a list.
    ['{ search(limit: 1000) { name } }', {}, 10],
    ['{ search(filter: { limit: 1000 }) { name } }', {}, 10],
    // A free-form JSON value costs its declared weight: 1,000 items with it cost 11,000.
    ['{ page(first: 1000) { data } }', {}, 11000],
  ])('%s with %j costs %d', (query, variables, cost) => {
    expect(costOf(query, variables)).toBe(cost);
  });

  // A connection (@listSize with sizedFields): its page size applies to `edges` and `nodes`.
  test.each([
    ['{ partPage(first: 1000) { nodes { data } } }', {}, 11001],
    ['{ partPage(first: 1000) { edges { node { data } } } }', {}, 12001],
    ['{ partPage(first: 1000) { edges { cursor node { id } } nodes { id } } }', {}, 3001],
    ['{ partPage(last: 3) { edges { cursor node { id } } } }', {}, 7],
    ['{ partPage(first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } }', {}, 52],
    ['{ partPage(first: 1000) { totalCount pageInfo { hasNextPage } } }', {}, 2],
    ['query($n: Int) { partPage(first: $n, after: "x") { nodes { maker { id } } } }', { n: 1000 }, 2001],
    ['query($n: Int = 1000) { partPage(first: $n) { nodes { maker { id } } } }', {}, 2001],
    // No size given: the resolver's own default, declared as assumedSize (100), not 10.
    ['{ partPage { nodes { id } } }', {}, 101],
    ['query($n: Int) { partPage(first: $n) { nodes { id } } }', {}, 101],
    // Through fragments on the connection type, each spread sized by its own connection field.
    ['{ partPage(first: 20) { ... on PartConnection { nodes { id } } ... { edges { cursor } } } }', {}, 41],
    ['{ a: partPage(first: 100) { ...C } b: partPage(first: 5) { ...C } } fragment C on PartConnection { nodes { id } pageInfo { endCursor } }', {}, 109],
    // A connection inside a page: its own size, times its parent's; with no size, its own default (10 here).
    ['{ partPage(first: 10) { nodes { related(first: 100) { nodes { id } } } } }', {}, 1021],
    ['{ parts { related { nodes { id } } } }', {}, 120],
  ])('%s with %j costs %d', (query, variables, cost) => {
    expect(costOf(query, variables)).toBe(cost);
  });

  // Issue 24: a subgraph port's `_entities` is as long as its representations, each a lookup of its own.
  test.each([
    ['query($r: [JSON!]!) { _entities(representations: $r) { ... on Part { id } } }', { r: Array.from({ length: 15_000 }, (_, i) => ({ __typename: 'Part', id: i })) }, 15_000 * ENTITY_LOOKUP_WEIGHT],
    ['query($r: [JSON!]!) { _entities(representations: $r) { ... on Part { maker { id } } } }', { r: [{}, {}] }, 2 * (ENTITY_LOOKUP_WEIGHT + 1)],
    ['{ _entities(representations: [{ __typename: "Part", id: 1 }]) { __typename } }', {}, ENTITY_LOOKUP_WEIGHT],
  ])('%s costs %d', (query, variables, cost) => {
    expect(costOf(query, variables)).toBe(cost);
  });

  test('the costliest path follows the costliest selection at each level, by response key', () => {
    expect(operationCost(operationOf('{ a: part(id: 1) { id } b: partPage(first: 7) { totalCount nodes { parts { id } maker { id } } } }'))).toEqual({
      cost: 1 + 1 + 7 * 12,
      path: ['b', 'nodes', 'parts'],
    });
    expect(operationCost(operationOf('{ x: page(first: 2) { ...F } } fragment F on Part { blob }')).path).toEqual(['x', 'blob']);
    expect(operationCost(operationOf('{ __typename }')).path).toEqual([]);
  });

  test('a fragment bomb inside a connection is measured at once (each fragment walked once per page size)', () => {
    const fragments = ['fragment F0 on PartConnection { nodes { id } }'];
    for (let i = 1; i <= 40; i++) fragments.push(`fragment F${i} on PartConnection { ...F${i - 1} ...F${i - 1} }`);
    // 2^40 paths: walked one by one, this would never return; the answer is the proof.
    expect(costOf(`{ a: partPage(first: 1000) { ...F40 } b: partPage(first: 7) { ...F40 } } ${fragments.join(' ')}`)).toBe(2 + 2 ** 40 * 1007);
  });

  test('15 aliases of a connection page of 1,000 payloads: QUERY_TOO_COMPLEX naming the setting and the costliest path', () => {
    const aliases = Array.from({ length: 15 }, (_, i) => `p${i}: partPage(first: 1000) { nodes { data } }`).join(' ');
    expect(refusalOf({ maxCost: 50000 }, `{ ${aliases} }`)).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      message: 'operation cost 165015 exceeds the limit of 50000 (GRAPHQL_MAX_COST); its costliest path is p0.nodes.data',
      details: { limit: 50000, actual: 165015, path: 'p0.nodes.data' },
    });
    expect(refusalOf({ maxCost: 50000 }, `{ ${aliases.replaceAll('first: 1000', 'first: 100')} }`)).toBeUndefined();
  });

  test('an operation over the limit is refused with QUERY_TOO_COMPLEX (400)', () => {
    expect(refusalOf({ maxCost: 100 }, '{ parts { parts { id } } }')).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { limit: 100, actual: 110, path: 'parts.parts' } });
  });

  test('an operation within the limit runs', () => {
    expect(refusalOf({ maxCost: 100 }, '{ parts { maker { id } } }')).toBeUndefined();
  });

  test("a list's size from a variable is measured with each request's variables, the same operation accepted and then refused", () => {
    const plugin = operationLimits({ maxDepth: Infinity, maxAliases: Infinity, maxCost: 100, maxSelections: Infinity });
    const { operation, fragments, schema } = operationOf('query ($n: Int) { page(first: $n) { maker { id } } }');
    const request = (n: number) => () => plugin.onOperation!({ operation, fragments, schema, variables: { n }, exchange: { protocol: 'graphql' } as Exchange });
    expect(request(50)).not.toThrow();
    expect(request(60)).toThrow(expect.objectContaining({ code: 'QUERY_TOO_COMPLEX', details: { limit: 100, actual: 120, path: 'page.maker' } }));
  });
});
