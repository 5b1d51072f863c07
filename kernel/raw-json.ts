import { randomUUID } from 'node:crypto';
import { knowJsonBytes } from './request-budget.js';

/**
 * A subtree of a subgraph's answer kept as the JSON the subgraph sent, its UTF-8 bytes, neither
 * decoded nor parsed (gateway/executor/passthrough.ts: only text already in JSON.stringify's own
 * form, checked to be the client's answer there as it stands). It is written as those bytes
 * (`jsonSplices`, kernel/http/answer-text.ts), decoded where the writer makes a string (`jsonText`,
 * json-pieces.ts), and the request budget counts it by `bytes` without walking it (the count is the
 * one the budget's walk of the parsed value would give). It is frozen and opaque: what copies or
 * freezes JSON values takes it whole (kernel/json.ts `jsonCopy`, `deepFreeze`); what must read
 * inside it or write into it parses it first (`parsed`; kernel/json.ts `thawed`); anything else that
 * writes it as JSON (a `JSON.stringify` not through `jsonText`) gets its parsed value through
 * `toJSON`, the same text.
 */
export class RawJson {
  constructor(
    /** JSON.stringify's text of the value, exactly, in UTF-8. */
    readonly utf8: Buffer,
    /** Its JSON bytes as the request budget counts them (kernel/request-budget.ts `jsonBytes`). */
    readonly bytes: number,
    /** What it was checked against (the client's selection there): only that reader may take it as it is. */
    readonly checkedFor: object,
  ) {
    knowJsonBytes(this, bytes);
    Object.freeze(this);
  }

  /** JSON.stringify's text of the value. */
  get text(): string {
    return this.utf8.toString('utf8');
  }

  /** The value the text stands for, new objects each call. */
  parsed(): unknown {
    return JSON.parse(this.text);
  }

  /** Inside `jsonSplices`, a placeholder the text then replaces; anywhere else, the value itself. */
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

/** The raw values met, in order, by the JSON.stringify under way in `jsonSplices`; null outside it. */
let writing: RawJson[] | null = null;

/** JSON text in order: texts, and subtrees kept as their bytes. */
export type JsonPiece = string | RawJson;

/**
 * `JSON.stringify(value)` appended to `out` as pieces, each RawJson in it as itself (JSON.stringify's
 * own text, so that the pieces joined are the text of the parsed value); false, and nothing
 * appended, for a value JSON.stringify writes nothing for (undefined, a function).
 */
export function jsonSplices(value: unknown, out: JsonPiece[]): boolean {
  const outer = writing;
  const met: RawJson[] = [];
  writing = met;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } finally {
    writing = outer;
  }
  if (text === undefined) return false;
  let from = 0;
  for (const raw of met) {
    const at = text.indexOf(WRITTEN_PLACEHOLDER, from);
    if (at < 0) throw new Error('a raw JSON value was not written where it was met');
    out.push(text.slice(from, at), raw);
    from = at + WRITTEN_PLACEHOLDER.length;
  }
  out.push(from === 0 ? text : text.slice(from));
  return true;
}

/** `JSON.stringify(value)`, each RawJson in it written as its text. */
export function jsonText(value: unknown): string | undefined {
  const pieces: JsonPiece[] = [];
  return jsonSplices(value, pieces) ? joinedText(pieces) : undefined;
}

/** The pieces as one string, subtrees decoded. */
function joinedText(pieces: readonly JsonPiece[]): string {
  let text = '';
  for (const piece of pieces) text += typeof piece === 'string' ? piece : piece.text;
  return text;
}

/**
 * JSON text in UTF-8 as the parts it is written in: texts, and subtrees' bytes as the subgraphs sent
 * them. Never joined into one buffer: the socket takes the parts in one `writev` (pipeline.ts). A
 * joined buffer was a copy of the whole answer (125 KB for the bench's varied request), made outside
 * V8's heap, and such memory counts towards V8's next full collection: most of the gateway's
 * collections on varied requests were those (bench/PROFILE.md, "Eleventh steps").
 */
export class Utf8Parts {
  /** The whole text's length in bytes (its Content-Length). */
  readonly byteLength: number;

  constructor(readonly parts: ReadonlyArray<string | Buffer>) {
    let length = 0;
    for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
    this.byteLength = length;
  }

  /** The text, decoded: for a reader that takes strings only. */
  text(): string {
    let text = '';
    for (const part of this.parts) text += typeof part === 'string' ? part : part.toString('utf8');
    return text;
  }
}

/**
 * The pieces as UTF-8 parts, the subtrees' bytes as they are (never decoded nor encoded again); as
 * one string when there is no subtree among them.
 */
export function joinedUtf8(pieces: readonly JsonPiece[]): string | Utf8Parts {
  if (!pieces.some((piece) => piece instanceof RawJson)) return pieces.join('');
  // Texts between subtrees joined first: a part each, not one per small piece.
  const parts: Array<string | Buffer> = [];
  let text = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      text += piece;
      continue;
    }
    if (text) parts.push(text);
    parts.push(piece.utf8);
    text = '';
  }
  if (text) parts.push(text);
  return new Utf8Parts(parts);
}
