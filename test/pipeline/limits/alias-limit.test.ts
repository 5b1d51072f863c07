import { operationAliases } from '../../../pipeline/limits/aliases.js';
import { operationOf, refusalOf } from './limit-harness.js';

describe('operation aliases (GRAPHQL_MAX_ALIASES)', () => {
  test.each([
    ['{ parts { id } }', 0],
    ['{ a: part(id: 1) { id } b: part(id: 2) { n: name } }', 3],
    ['{ node(id: 1) { ... on Part { x: id y: id } } }', 2],
    ['{ a: partPage(first: 1) { e: edges { cursor } n: nodes { id } } b: partPage(last: 1) { nodes { id } } }', 4],
    // A fragment's aliases count at each spread: that is what gets executed.
    ['{ parts { ...Two } part(id: 1) { ...Two } } fragment Two on Part { a: id b: name }', 4],
    // Aliased introspection is the same batching trick.
    ['{ a: __schema { queryType { name } } b: __schema { queryType { name } } }', 2],
  ])('%s has %d aliases', (query, count) => {
    expect(operationAliases(operationOf(query))).toBe(count);
  });

  test('more aliases than the limit are refused with TOO_MANY_ALIASES (400)', () => {
    const query = `{ ${Array.from({ length: 4 }, (_, i) => `p${i}: part(id: ${i}) { id }`).join(' ')} }`;
    expect(refusalOf({ maxAliases: 3 }, query)).toMatchObject({ code: 'TOO_MANY_ALIASES', details: { limit: 3, actual: 4 } });
  });

  test('as many aliases as the limit run', () => {
    expect(refusalOf({ maxAliases: 3 }, '{ a: part(id: 1) { id } b: part(id: 2) { id } c: part(id: 3) { id } }')).toBeUndefined();
  });
});
