import { jsonText } from '../raw-json.js';

/**
 * The levels of an answer walked here member by member: the result, its `data`, and the values of
 * the root fields, which shaping and merging build anew for each request above what they adopt of
 * the subgraphs' answers as it is (gateway/executor/result-shaping.ts).
 */
const WALKED_LEVELS = 3;
/** Shorter texts are written again rather than remembered. */
const REMEMBERED_FROM = 1024;

/** The text of frozen values, for as long as each lives. */
const frozenTexts = new WeakMap<object, string>();

/**
 * `JSON.stringify(answer)`, exactly, with the text of each frozen object or array in the answer's
 * first levels written once and remembered while that value lives. A frozen value is a subgraph
 * answer shared by the requests in flight (gateway/executor/inflight-sharing.ts) or reused
 * (answer-cache.ts): frozen through and through (kernel/json.ts `deepFreeze`), it never changes,
 * and every request that shared it holds it as it is wherever shaping adopted it. Writing the whole
 * answer for each of them was a fifth of the gateway's CPU on identical requests (bench/PROFILE.md,
 * issue 39). A reused answer's text stays as long as the answer cache keeps it.
 *
 * The first WALKED_LEVELS levels are walked here; anything below them, and any value that is not a
 * plain object or array (one with `toJSON`), is written by JSON.stringify at once, so that an
 * answer holding nothing frozen costs a few calls more than one. Subtrees kept as the subgraph's
 * text (kernel/raw-json.ts) are written as that text, wherever they are (`jsonText`).
 */
export function answerText(value: unknown, levels = WALKED_LEVELS): string | undefined {
  if (typeof value !== 'object' || value === null || !plain(value)) return jsonText(value);
  if (Object.isFrozen(value)) return frozenText(value);
  if (levels === 0) return jsonText(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i > 0 ? ',' : ''}${answerText(value[i], levels - 1) ?? 'null'}`;
    return `${text}]`;
  }
  let text = '{';
  for (const key of Object.keys(value)) {
    const member = answerText((value as Record<string, unknown>)[key], levels - 1);
    // What JSON leaves out of an object (undefined, a function) has no text.
    if (member !== undefined) text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${member}`;
  }
  return `${text}}`;
}

/** An array, or an object JSON writes member by member: no `toJSON`, and no prototype but Object's (a boxed string is not one). */
function plain(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function frozenText(value: object): string {
  let text = frozenTexts.get(value);
  if (text === undefined) {
    text = jsonText(value)!;
    if (text.length >= REMEMBERED_FROM) frozenTexts.set(value, text);
  }
  return text;
}
