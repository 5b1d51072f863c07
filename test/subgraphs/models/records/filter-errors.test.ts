import type { ArtifactHost } from '../../../support/artifact-host.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../../support/system.js';
import { coreQuery, expectError, recordsModelHost, recordsQuery } from './support.js';

/**
 * Issue 27, "errors in the wrong language": one filter problem, refused in each client's own words.
 * The graph names the part of its typed input the client wrote (`filter.conditions[0].value`) in its
 * own terms (RecordField, FilterOperator, FilterValue's members); the REST facades keep the
 * contract's details (`where[0]`, the JSON form's `op` and field names) word for word.
 */
const RECORDS = `query Records($filter: RecordFilter, $orderBy: [RecordOrder!]) {
  records(filter: $filter, orderBy: $orderBy) { totalCount }
}`;

interface Case {
  /** The graph's `records` arguments. */
  graph: { filter?: { conditions: unknown[] }; orderBy?: unknown[] };
  graphAt: string;
  graphReason: string;
  /** The same problem in the REST filter (`POST /records/query`). */
  rest: Record<string, unknown>;
  restAt: string;
  restReason: string;
}

const PATH_RULE = 'a PAYLOAD path is keys of [A-Za-z0-9_-] joined by dots, each key with any [n] indexes (product_info.product_category, parameter_assessments[0].parameter_id)';
const REST_FIELD_RULE = 'field must be id, model, version, created_at, updated_at or payload.<key> with keys of [A-Za-z0-9_-] and [n] indexes';

const CASES: Array<[string, Case]> = [
  [
    'a payload path with a space',
    {
      graph: { filter: { conditions: [{ field: 'PAYLOAD', path: 'product info', operator: 'EQ', value: { string: 'Battery' } }] } },
      graphAt: 'filter.conditions[0].path',
      graphReason: PATH_RULE,
      rest: { where: [{ field: 'payload.product info', op: 'eq', value: 'Battery' }] },
      restAt: 'where[0]',
      restReason: REST_FIELD_RULE,
    },
  ],
  [
    'an order by a payload path with an empty key',
    {
      graph: { orderBy: [{ field: 'PAYLOAD', path: 'weight..kg', direction: 'DESC' }] },
      graphAt: 'orderBy[0].path',
      graphReason: PATH_RULE,
      rest: { sort: [{ field: 'payload.weight..kg', direction: 'desc' }] },
      restAt: 'sort[0]',
      restReason: REST_FIELD_RULE,
    },
  ],
  [
    'CONTAINS on an instant',
    {
      graph: { filter: { conditions: [{ field: 'CREATED_AT', operator: 'CONTAINS', value: { string: '2025' } }] } },
      graphAt: 'filter.conditions[0].operator',
      graphReason: 'CONTAINS does not apply to CREATED_AT: compare instants with EQ, NE, IN, GT, GTE, LT or LTE',
      rest: { where: [{ field: 'created_at', op: 'contains', value: '2025' }] },
      restAt: 'where[0]',
      restReason: 'contains does not apply to a timestamp field',
    },
  ],
  [
    'an instant that is not one',
    {
      graph: { filter: { conditions: [{ field: 'UPDATED_AT', operator: 'LT', value: { string: 'yesterday' } }] } },
      graphAt: 'filter.conditions[0].value',
      graphReason: 'UPDATED_AT takes value.dateTime (an ISO 8601 instant)',
      rest: { where: [{ field: 'updated_at', op: 'lt', value: 'yesterday' }] },
      restAt: 'where[0]',
      restReason: 'updated_at takes an ISO 8601 timestamp',
    },
  ],
  [
    'IN with an object among its values',
    {
      graph: { filter: { conditions: [{ field: 'PAYLOAD', path: 'name', operator: 'IN', values: [{ string: 'a' }, { json: { b: 1 } }] }] } },
      graphAt: 'filter.conditions[0].values',
      graphReason: 'IN takes at least one value, each a string, number, boolean, dateTime or null',
      rest: { where: [{ field: 'payload.name', op: 'in', value: ['a', { b: 1 }] }] },
      restAt: 'where[0]',
      restReason: 'in takes a non-empty array of scalars',
    },
  ],
  [
    'EXISTS with a string',
    {
      graph: { filter: { conditions: [{ field: 'PAYLOAD', path: 'name', operator: 'EXISTS', value: { string: 'yes' } }] } },
      graphAt: 'filter.conditions[0].value',
      graphReason: 'EXISTS takes value.boolean',
      rest: { where: [{ field: 'payload.name', op: 'exists', value: 'yes' }] },
      restAt: 'where[0]',
      restReason: 'exists takes a boolean',
    },
  ],
  [
    'GTE with a list',
    {
      graph: {
        filter: {
          conditions: [
            { field: 'ID', operator: 'EQ', value: { string: 'w-1' } },
            { field: 'PAYLOAD', path: 'weight', operator: 'GTE', value: { json: [1] } },
          ],
        },
      },
      graphAt: 'filter.conditions[1].value',
      graphReason: 'GTE takes value.number, value.string or value.dateTime',
      rest: {
        where: [
          { field: 'id', op: 'eq', value: 'w-1' },
          { field: 'payload.weight', op: 'gte', value: [1] },
        ],
      },
      restAt: 'where[1]',
      restReason: 'gte takes a number or a string',
    },
  ],
  [
    'a string no store can hold',
    {
      graph: { filter: { conditions: [{ field: 'PAYLOAD', path: 'name', operator: 'EQ', value: { string: 'a\u0000b' } }] } },
      graphAt: 'filter.conditions[0].value',
      graphReason: 'strings may not hold U+0000 or unpaired surrogates',
      rest: { where: [{ field: 'payload.name', op: 'eq', value: 'a\u0000b' }] },
      restAt: 'where[0]',
      restReason: 'value $: strings may not hold U+0000 or unpaired surrogates',
    },
  ],
];

/** The condition or sort key `where[1]` names: the contract's `given`. */
function partAt(filter: Record<string, unknown>, at: string): unknown {
  const [, list, index] = /^(where|sort)\[(\d+)\]$/.exec(at)!;
  return (filter[list!] as unknown[])[Number(index)];
}

describe('a bad filter, refused in the words of the client that sent it', () => {
  let host: ArtifactHost;
  let sut: TestSystem;

  beforeAll(async () => {
    const models = await recordsModelHost();
    host = models.host;
    sut = await startInProcessSystem({ ...NO_AUTH, ...models.env });
  });
  afterAll(async () => {
    await sut?.stop();
    await host?.stop();
  });

  test.each(CASES)('%s: the graph names its input and terms', async (_, c) => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: RECORDS, variables: c.graph } });
    expect(answer.json.data).toBeNull();
    expect(answer.json.errors).toHaveLength(1);
    const [{ message, path, extensions }] = answer.json.errors;
    expect({ message, path, extensions }).toEqual({
      message: `invalid query filter: ${c.graphAt}: ${c.graphReason}`,
      path: ['records'],
      extensions: { code: 'BAD_REQUEST', details: { at: c.graphAt, reason: c.graphReason } },
    });
    // Nothing of the JSON form the client never wrote.
    expect(answer.text).not.toMatch(/payload\.<key>|where\[|sort\[|ISO 8601 timestamp|\b(in|exists|contains|gte) takes/);
  });

  test.each(CASES)("%s: the REST facades answer the contract's details, unchanged", async (_, c) => {
    const details = { at: c.restAt, reason: c.restReason, given: partAt(c.rest, c.restAt) };
    const core = await coreQuery(sut.url('core'), c.rest);
    expect(expectError(core, 400, 'BAD_REQUEST')).toEqual(details);
    expect(core.json.message).toBe(`invalid query filter: ${c.restAt}: ${c.restReason}`);
    const records = await recordsQuery(sut.url('records'), c.rest);
    expect(expectError(records, 400, 'bad_request')).toEqual(details);
    expect(records.json.message).toBe(`invalid query filter: ${c.restAt}: ${c.restReason}`);
  });
});
