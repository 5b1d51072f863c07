import { type JsonPiece, type Utf8Parts, joinedUtf8, jsonSplices } from '../raw-json.js';

/**
 * The levels of an answer walked here member by member: the result, its `data`, and the values of
 * the root fields, which shaping and merging build anew for each request above what they adopt of
 * the subgraphs' answers as it is (gateway/executor/result-shaping.ts).
 */
const WALKED_LEVELS = 3;
/** Shorter texts are written again rather than remembered. */
const REMEMBERED_FROM = 1024;

/** The text of frozen values, as pieces, for as long as each lives. */
const frozenTexts = new WeakMap<object, readonly JsonPiece[]>();

/**
 * `JSON.stringify(answer)`, exactly, followed by `end`, with the text of each frozen object or array
 * in the answer's first levels written once and remembered while that value lives. A frozen value is
 * a subgraph answer shared by the requests in flight (gateway/executor/inflight-sharing.ts) or reused
 * (answer-cache.ts): frozen through and through (kernel/json.ts `deepFreeze`), it never changes, and
 * every request that shared it holds it as it is wherever shaping adopted it. Writing the whole
 * answer for each of them was a fifth of the gateway's CPU on identical requests (bench/PROFILE.md,
 * issue 39). A reused answer's text stays as long as the answer cache keeps it.
 *
 * The first WALKED_LEVELS levels are walked here; anything below them, and any value that is not a
 * plain object or array (one with `toJSON`), is written by JSON.stringify at once, so that an answer
 * holding nothing frozen costs a few calls more than one. Subtrees kept as the subgraphs' bytes
 * (kernel/raw-json.ts) stay those bytes, wherever they are (`jsonSplices`): an answer that holds one
 * is UTF-8 parts (never decoded: the socket takes the subtrees' bytes as they are), any other a string.
 * A value JSON writes nothing for (undefined) is `end` alone.
 */
export function answerUtf8(answer: unknown, end: string): string | Utf8Parts {
  const pieces: JsonPiece[] = [];
  answerPieces(answer, WALKED_LEVELS, pieces);
  pieces.push(end);
  return joinedUtf8(pieces);
}

/** The answer's text appended to `out`; false, and nothing appended, when JSON writes nothing for it. */
function answerPieces(value: unknown, levels: number, out: JsonPiece[]): boolean {
  if (typeof value !== 'object' || value === null || !plain(value)) return jsonSplices(value, out);
  if (Object.isFrozen(value)) {
    out.push(...frozenPieces(value));
    return true;
  }
  if (levels === 0) return jsonSplices(value, out);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      if (!answerPieces(value[i], levels - 1, out)) out.push('null');
    }
    out.push(']');
    return true;
  }
  out.push('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const mark = out.length;
    out.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
    // What JSON leaves out of an object (undefined, a function) has no text.
    if (answerPieces((value as Record<string, unknown>)[key], levels - 1, out)) first = false;
    else out.length = mark;
  }
  out.push('}');
  return true;
}

/** An array, or an object JSON writes member by member: no `toJSON`, and no prototype but Object's (a boxed string is not one). */
function plain(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function frozenPieces(value: object): readonly JsonPiece[] {
  let pieces = frozenTexts.get(value);
  if (pieces === undefined) {
    const written: JsonPiece[] = [];
    jsonSplices(value, written);
    pieces = written;
    if (piecesLength(pieces) >= REMEMBERED_FROM) frozenTexts.set(value, pieces);
  }
  return pieces;
}

function piecesLength(pieces: readonly JsonPiece[]): number {
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? piece.length : piece.utf8.length;
  return length;
}
