import { jsonBytesPast } from '../request-budget.js';
import { RawJson, jsonText } from '../raw-json.js';

/** Values whose JSON is at most this long are written by one JSON.stringify (V8's own, fast); larger ones piece by piece. */
const WHOLE_UP_TO = 64 * 1024;

/**
 * `JSON.stringify(value)` in pieces, in order, whose concatenation is exactly that text: objects and
 * arrays larger than WHOLE_UP_TO are opened and their members written one by one, anything smaller
 * (and any string, however long) by JSON.stringify at once. A writer can then hand each piece to
 * the socket as it comes, and an answer of 31.5 MB is never one string, nor one buffer, beside the
 * objects it is written from (kernel/http/json-answer.ts). Recursive: an answer is as deep as the
 * operation (GRAPHQL_MAX_DEPTH) plus a JSON value (SERVER_JSON_MAX_DEPTH).
 */
export function* jsonPieces(value: unknown): Generator<string> {
  if (value instanceof RawJson) {
    // A subtree kept as the subgraph's text (kernel/raw-json.ts): that text, however long, is already one string.
    yield value.text;
    return;
  }
  if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function' || !jsonBytesPast(value, WHOLE_UP_TO)) {
    yield jsonText(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      yield* jsonPieces(omitted(value[i]) ? null : value[i]);
    }
    yield ']';
    return;
  }
  let first = true;
  yield '{';
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (omitted(member)) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonPieces(member);
  }
  yield '}';
}

/** What JSON leaves out of an object, and writes as null in an array. */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
