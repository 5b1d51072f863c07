import { costLimit, operationCost } from '../../gateway/plugins/cost-limit.js';
import { operationOf, runWith } from './limit-harness.js';

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

  test('an operation over the limit is refused with QUERY_TOO_COMPLEX (400)', async () => {
    const { status, errors } = await runWith(costLimit(100), '{ parts { parts { id } } }');
    expect(status).toBe(400);
    expect(errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'QUERY_TOO_COMPLEX', details: { limit: 100, actual: 110 } }) })]);
  });

  test('an operation within the limit runs', async () => {
    const { errors } = await runWith(costLimit(100), '{ parts { maker { id } } }');
    expect(errors).toBeUndefined();
  });
});
