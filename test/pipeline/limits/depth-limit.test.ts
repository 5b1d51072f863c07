import { operationDepth } from '../../../pipeline/limits/depth.js';
import { operationOf, refusalOf } from './limit-harness.js';

describe('operation depth (GRAPHQL_MAX_DEPTH)', () => {
  test.each([
    ['{ parts { id } }', 2],
    ['{ part(id: 1) { parts { parts { maker { name } } } } }', 5],
    ['{ a: part(id: 1) { id } b: parts { parts { id } } }', 3],
    // Fragments, inline or named, add no level of their own.
    ['{ node(id: 1) { ... on Part { parts { id } } } }', 3],
    ['{ parts { ...Deep } } fragment Deep on Part { parts { ...Name } } fragment Name on Part { name }', 3],
    // Introspection is answered by the gateway from its schema: a leaf here.
    ['{ __schema { types { fields { name } } } }', 1],
    ['{ parts { __typename } }', 2],
    // A connection's edges and nodes are levels like any other.
    ['{ partPage(first: 5) { edges { node { maker { name } } } pageInfo { endCursor } } }', 5],
    ['{ partPage(first: 5) { nodes { id } totalCount } }', 3],
  ])('%s has depth %d', (query, depth) => {
    expect(operationDepth(operationOf(query))).toBe(depth);
  });

  // Walked once per spread, this chain would take 2^40 steps: the test would never end.
  test('a fragment spread many times over is measured once per fragment', () => {
    const chain = Array.from({ length: 40 }, (_, i) => `fragment F${i} on Part { parts { ...F${i + 1} ...F${i + 1} } }`).join('\n');
    expect(operationDepth(operationOf(`{ parts { ...F0 } } ${chain} fragment F40 on Part { id }`))).toBe(42);
  });

  test('an operation deeper than the limit is refused with QUERY_TOO_DEEP (400) and the figures', () => {
    expect(refusalOf({ maxDepth: 3 }, '{ part(id: 1) { parts { parts { id } } } }')).toMatchObject({
      code: 'QUERY_TOO_DEEP',
      message: 'operation depth 4 exceeds the limit of 3 (GRAPHQL_MAX_DEPTH)',
      details: { limit: 3, actual: 4 },
    });
  });

  test('an operation at the limit runs', () => {
    expect(refusalOf({ maxDepth: 3 }, '{ part(id: 1) { parts { id } } }')).toBeUndefined();
  });
});
