import { answerUtf8 } from '../../../kernel/http/answer-text.js';

/** The answer's text: with no subgraph bytes in it, a string. */
const answerText = (answer: unknown) => answerUtf8(answer, '');
import { deepFreeze, jsonCopy } from '../../../kernel/json.js';

/**
 * kernel/http/answer-text.ts: an answer's text is exactly JSON.stringify's, whatever it holds, and
 * a frozen part of it (a subgraph answer shared by requests) is written once.
 */
const payload = () => ({
  n: 1,
  blob: `${'x'.repeat(2_000)}"\\\n\u2028é😀`,
  list: [1, undefined, () => 1, null, Number.NaN, -0, 1e21],
  skipped: undefined,
  fn: () => 1,
  at: new Date(0),
  boxed: [new String('ab'), new Number(2), new Boolean(false)],
  toJSON: undefined,
});

test('an answer, shared parts or not, at any depth, is written as JSON.stringify writes it', () => {
  const shared = deepFreeze(jsonCopy({ nodes: [payload(), payload()] }));
  const bare: Record<string, unknown> = Object.create(null);
  bare.records = shared;
  bare.own = { nodes: [payload()], nested: { deeper: { deepest: [payload(), shared] } } };
  bare.withToJSON = { toJSON: () => ({ as: 'toJSON says' }) };
  const answers = [
    { data: bare, errors: [{ message: 'x', path: ['records', 0], extensions: { code: 'X', skipped: undefined } }] },
    { data: { list: [shared, undefined, payload(), [shared, [shared]]] } },
    { data: null },
    shared,
    payload(),
    [undefined, () => 1, shared],
  ];
  for (const answer of answers) expect(answerText(answer)).toBe(JSON.stringify(answer));
  for (const leaf of ['text', 3, null, true, undefined]) expect(answerText(leaf)).toBe(JSON.stringify(leaf) ?? '');
});

test('a frozen part is written once, and its text reused by every answer that holds it', () => {
  let reads = 0;
  const shared = Object.freeze({
    blob: 'x'.repeat(2_000),
    get counted() {
      reads += 1;
      return 'read';
    },
  });
  const first = answerText({ data: { records: shared } });
  const second = answerText({ data: { records: shared, other: 1 } });
  expect(first).toBe(JSON.stringify({ data: { records: shared } }));
  expect(second).toBe(JSON.stringify({ data: { records: shared, other: 1 } }));
  // Twice by the JSON.stringify calls above, once by answerUtf8 for both answers.
  expect(reads).toBe(3);
});
