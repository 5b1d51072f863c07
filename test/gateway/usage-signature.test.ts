import { type OperationDefinitionNode, Kind, parse } from 'graphql';
import { readCommittedSupergraph } from '../../gateway/committed-supergraph.js';
import { documentUsage, inputCoordinates } from '../../gateway/usage/coordinates.js';
import { fragmentsOf } from '../../pipeline/limits/measure.js';
import { apiSchemaOf } from '../../server/schema-check.js';

/**
 * Issue 35: what usage keeps of a document is Apollo's usage reporting signature, and the
 * coordinates it stores with it are those the signature itself shows: documents that differ only
 * by literals are one operation (one hash, one text, the same coordinates), and what only their
 * literals showed is each request's input, so that what a request touched is what it was.
 */
const schema = await apiSchemaOf(await readCommittedSupergraph());

function usageOf(text: string) {
  const document = parse(text);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return documentUsage(schema, operation, fragmentsOf(document));
}

const DOCUMENTS = [
  'query ByMail { record(id: "alice@example.com") { id } }',
  'query Search { r: records(first: 5, filter: { conditions: [{ field: PAYLOAD, path: "ssn", operator: EQ, value: { string: "078-05-1120" } }] }, orderBy: [{ field: CREATED_AT, direction: DESC }]) { totalCount } }',
  'query Defaulted($id: ID! = "bob@example.com", $n: Int = 3) { record(id: $id) { id } records(first: $n) { totalCount } }',
  'mutation Store($key: String!) { createRecord(input: { model: "bare", version: "0.1", idempotencyKey: $key, payload: { email: "x@y.z", list: [1, 2] } }) { replayed } }',
  '{ ...Counts modelVersion(model: "m", version: "1") { model } } fragment Counts on Query { modelVersionCount }',
];

describe('the usage reporting signature', () => {
  test.each(DOCUMENTS)('%s: no literal kept; the signature, read again, gives the same hash, text and coordinates', (text) => {
    const usage = usageOf(text);
    for (const secret of ['alice@example.com', '078-05-1120', 'bob@example.com', 'x@y.z', '"m"', '"bare"']) expect(usage.body).not.toContain(secret);
    expect(usage.body).not.toMatch(/\s{2}|\n/);
    const again = usageOf(usage.body);
    expect({ hash: again.hash, body: again.body, coordinates: again.coordinates }).toEqual({ hash: usage.hash, body: usage.body, coordinates: usage.coordinates });
    // What the signature no longer shows is the document's input, never lost.
    expect(again.literalInputs.coordinates.every((c) => usage.literalInputs.coordinates.includes(c))).toBe(true);
  });

  test('documents that differ only by their literals are one operation; what their literals touched goes with each request', () => {
    const a = usageOf('query Find { records(filter: { conditions: [{ field: ID, operator: EQ, value: { string: "a" } }] }) { totalCount } }');
    const b = usageOf('query Find { records(filter: { conditions: [{ field: MODEL, operator: IN, value: { json: ["b"] } }] }) { totalCount } }');
    expect(b.hash).toBe(a.hash);
    expect(b.coordinates).toEqual(a.coordinates);
    expect(a.coordinates).toEqual(expect.arrayContaining(['Query.records.filter', 'Query.records.filter!', 'RecordFilter']));
    expect(inputCoordinates(a, {}).coordinates).toEqual(expect.arrayContaining(['RecordField.ID', 'FilterOperator.EQ', 'FilterValue.string!']));
    expect(inputCoordinates(b, {}).coordinates).toEqual(expect.arrayContaining(['RecordField.MODEL', 'FilterOperator.IN', 'FilterValue.json!']));
    expect(inputCoordinates(b, {}).coordinates).not.toContain('FilterValue.string!');
  });

  test("a variable's inputs add to the literals'", () => {
    const usage = usageOf('query Page($first: Int) { records(first: $first, orderBy: [{ field: CREATED_AT, direction: ASC }]) { totalCount } }');
    expect(inputCoordinates(usage, { first: 2 }).coordinates).toEqual(expect.arrayContaining(['Query.records.first!', 'RecordOrder.field!', 'OrderDirection.ASC']));
    expect(inputCoordinates(usage, {}).coordinates).not.toContain('Query.records.first!');
    expect(inputCoordinates(usage, {}).coordinates).toContain('RecordOrder.field!');
  });

  test('a long operation name is cut in the name, and a signature past 32 KiB is kept without its text', () => {
    const usage = usageOf(`query N${'n'.repeat(40_000)} { modelVersionCount }`);
    expect(usage.name!.length).toBeLessThanOrEqual(257);
    expect(usage.body).toBe('');
    expect(usage.coordinates).toContain('Query.modelVersionCount');
    expect(usage.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
