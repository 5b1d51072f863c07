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
    ['{ search(filter: { limit: 1000 }) { name } }', {}, 1000],
    ['query($f: JSON) { search(filter: $f) { name } }', { f: { where: {}, limit: 500 } }, 500],
    ['query($f: JSON) { search(filter: $f) { name } }', { f: null }, 10],
    ['{ search { name } }', {}, 10],
    // A free-form JSON value costs ten fields: 1,000 items with it cost 11,000.
    ['{ search(filter: { limit: 1000 }) { data } }', {}, 11000],
    ['{ part(id: 1) { data } }', {}, 11],
  ])('%s with %j costs %d', (query, variables, cost) => {
    expect(operationCost(operationOf(query, variables))).toBe(cost);
  });

  test('an operation over the limit is refused with QUERY_TOO_COMPLEX (400)', () => {
    expect(refusalOf({ maxCost: 100 }, '{ parts { parts { id } } }')).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { limit: 100, actual: 110 } });
  });

  test('an operation within the limit runs', () => {
    expect(refusalOf({ maxCost: 100 }, '{ parts { maker { id } } }')).toBeUndefined();
  });
});
