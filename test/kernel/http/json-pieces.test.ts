import { jsonPieces } from '../../../kernel/http/json-pieces.js';
import { jsonCopy } from '../../../kernel/json.js';

/**
 * A large answer written in pieces (kernel/http/json-pieces.ts) and an answer shared in flight
 * copied without its text (kernel/json.ts, jsonCopy) are exactly what JSON.stringify and a parse of
 * it give, whatever the value holds.
 */
const awkward = {
  data: {
    records: {
      nodes: Array.from({ length: 40 }, (_, i) => ({
        id: `r-${i}`,
        payload: { n: i, blob: `${'x'.repeat(20_000)}"\\\n\u2028é😀`, list: [1, undefined, () => 1, null, Number.NaN, -0, 1e21], skipped: undefined, fn: () => 1, at: new Date(0) },
      })),
      pageInfo: { hasNextPage: true, endCursor: null },
    },
  },
  errors: [{ message: 'x', toJSON: () => ({ message: 'as toJSON says' }) }],
  empty: { object: {}, array: [] },
};

test('the pieces of a large value, joined, are JSON.stringify of it, and none is the whole text', () => {
  const pieces = [...jsonPieces(awkward)];
  expect(pieces.join('')).toBe(JSON.stringify(awkward));
  expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(JSON.stringify(awkward).length / 10);
});

test('a small value, a leaf and an array of large values are written as JSON.stringify writes them', () => {
  for (const value of [{ a: 1 }, 'text', 3, null, true, [awkward, undefined, awkward]]) expect([...jsonPieces(value)].join('')).toBe(JSON.stringify(value));
});

test("a copy without the text is a parse of the text's, and shares its strings instead of copying them", () => {
  const copy = jsonCopy(awkward) as typeof awkward;
  expect(copy).toEqual(JSON.parse(JSON.stringify(awkward)));
  expect(copy.data.records.nodes[0]).not.toBe(awkward.data.records.nodes[0]);
  expect(copy.data.records.nodes[0]!.payload.blob).toBe(awkward.data.records.nodes[0]!.payload.blob);
});
