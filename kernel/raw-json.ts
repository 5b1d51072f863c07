import { randomUUID } from 'node:crypto';
import { knowJsonBytes } from './request-budget.js';

/**
 * A subtree of a subgraph's answer kept as the JSON text the subgraph sent, not parsed
 * (gateway/executor/passthrough.ts: only text already in JSON.stringify's own form, checked to be
 * the client's answer there as it stands). It is written as is (`jsonText`, kernel/http/answer-text.ts,
 * json-pieces.ts), and the request budget counts it by `bytes` without walking it (the count is the
 * one the budget's walk of the parsed value would give). It is frozen and opaque: what copies or
 * freezes JSON values takes it whole (kernel/json.ts `jsonCopy`, `deepFreeze`); what must read
 * inside it or write into it parses it first (`parsed`; kernel/json.ts `thawed`); anything else that
 * writes it as JSON (a `JSON.stringify` not through `jsonText`) gets its parsed value through
 * `toJSON`, the same text.
 */
export class RawJson {
  constructor(
    /** JSON.stringify's text of the value, exactly. */
    readonly text: string,
    /** Its JSON bytes as the request budget counts them (kernel/request-budget.ts `jsonBytes`). */
    readonly bytes: number,
    /** What it was checked against (the client's selection there): only that reader may take it as it is. */
    readonly checkedFor: object,
  ) {
    knowJsonBytes(this, bytes);
    Object.freeze(this);
  }

  /** The value the text stands for, new objects each call. */
  parsed(): unknown {
    return JSON.parse(this.text);
  }

  /** Inside `jsonText`, a placeholder the text then replaces; anywhere else, the value itself. */
  toJSON(): unknown {
    if (writing === null) return this.parsed();
    writing.push(this);
    return PLACEHOLDER;
  }
}

/**
 * What `toJSON` stands in for the text with while `jsonText` writes: no string of an answer can
 * hold it by chance (a random UUID of this process, which never leaves it: every occurrence is
 * replaced before the text is handed on).
 */
const PLACEHOLDER = `\u0000raw:${randomUUID()}`;
const WRITTEN_PLACEHOLDER = JSON.stringify(PLACEHOLDER);

/** The raw values met, in order, by the JSON.stringify under way in `jsonText`; null outside it. */
let writing: RawJson[] | null = null;

/** `JSON.stringify(value)`, each RawJson in it written as its text (JSON.stringify's own, so the result is that of the parsed value). */
export function jsonText(value: unknown): string | undefined {
  const outer = writing;
  const met: RawJson[] = [];
  writing = met;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } finally {
    writing = outer;
  }
  if (met.length === 0 || text === undefined) return text;
  let spliced = '';
  let from = 0;
  for (const raw of met) {
    const at = text.indexOf(WRITTEN_PLACEHOLDER, from);
    if (at < 0) throw new Error('a raw JSON value was not written where it was met');
    spliced += text.slice(from, at) + raw.text;
    from = at + WRITTEN_PLACEHOLDER.length;
  }
  return spliced + text.slice(from);
}
