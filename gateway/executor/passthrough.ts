import { isUtf8 } from 'node:buffer';
import { isEnumType } from 'graphql';
import { RawJson } from '../../kernel/raw-json.js';
import { PassedSubtrees } from './passed-subtrees.js';
import { type FieldSelection, INTEGER, type RawField, type Selection, type ValueShape, isPlain } from './result-shaping.js';

/**
 * Subtrees of a subgraph's answer passed through to the client's answer as the subgraph's own JSON
 * bytes, never parsed nor decoded (issue 39's varied requests: parsing the indicators' 107 KB
 * questionnaire, checking it, counting its bytes and writing it again was about a millisecond of
 * each request; bench/PROFILE.md, "Next: the varied side"). A subtree passes only where its text is
 * already what the gateway would write: in JSON.stringify's own form, and what result shaping would
 * adopt as it stands (result-shaping.ts `adoptable`: exactly the selected fields, in order, no null
 * where the type forbids one, every leaf valid). Anything else is parsed, as before.
 */

/** The answer's subtrees an entity fetch may keep as text: the fields `fields` names of each entity of `data[list]`. */
export interface RawSubtrees {
  /** Told apart from other specs when fetches are shared (inflight-sharing.ts): one per fetch of a planned operation. */
  readonly id: number;
  /** The response name of the entities' list: `_entities`. */
  readonly list: string;
  readonly fields: ReadonlyMap<string, RawField>;
}

let nextId = 0;

export function rawSubtrees(list: string, fields: ReadonlyMap<string, RawField>): RawSubtrees {
  return { id: ++nextId, list, fields };
}

/** Where the scan of a leaf or of the answer around the subtrees is in the answer's bytes. */
let at = 0;
/** The budget's bytes of what the scan took (kernel/request-budget.ts `jsonBytes`). */
const tally = { bytes: 0 };

/**
 * The end of the value that starts at `start` in `text` (UTF-8, checked by the caller), and its JSON
 * bytes as the request budget counts them, when that value's text is exactly `JSON.stringify` of it
 * and `adoptable` holds for it with `shape` and `selections` (a plain selection set); undefined
 * otherwise: whitespace, an escape JSON.stringify does not write (`\/`, `\u0041`, upper-case hex, a
 * lone surrogate's), `-0`, a number not written as JavaScript writes it (`1.0`, `1e2`, a digit
 * beyond a double's), an object or list as a custom scalar's value, a field missing, added or out of
 * order, an invalid leaf. Refusing is always safe: the text is then parsed as before.
 */
export function scanPassthrough(text: Buffer, start: number, shape: ValueShape, selections: Selection[]): { end: number; bytes: number } | undefined {
  if (!isPlain(selections)) return undefined;
  const scan = compiledScan(shape, selections);
  const known = passed.find(scan, text, start);
  if (known) return known;
  tally.bytes = 0;
  const end = scan(text, start);
  if (end < 0) return undefined;
  passed.remember(scan, text, start, end, tally.bytes);
  return { end, bytes: tally.bytes };
}

/** The subtrees that passed, by their bytes: the same questionnaire in the next answer is compared, not scanned again. */
export const passed = new PassedSubtrees();

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;

/** A value's scan compiled for its shape and selections: where its text ends from `p`, or -1; what it takes added to `tally`. */
type Scan = (text: Buffer, p: number) => number;

/** By the shape of a field's value (one object per field of a compiled operation), with the selections it was compiled for. */
const compiled = new WeakMap<ValueShape, { selections: Selection[] | null; scan: Scan }>();

/** Past this many fields and lists a selection is not compiled (its subtrees are parsed): a scan's code grows with its selection. */
const MAX_COMPILED_STEPS = 2_000;

function compiledScan(shape: ValueShape, selections: Selection[] | null): Scan {
  const known = compiled.get(shape);
  if (known?.selections === selections) return known.scan;
  const scan = compileScan(shape, selections);
  compiled.set(shape, { selections, scan });
  return scan;
}

type LeafShape = Extract<ValueShape, { kind: 'leaf' }>;

/** What compiled scans call: the leaves' checks (scanLeaf), and the tally they add to. */
const scanHelpers = {
  string: (text: Buffer, p: number): number => {
    at = p;
    return text[p] === QUOTE && scanString(text) ? at : -1;
  },
  leaf: (text: Buffer, p: number, shape: LeafShape): number => {
    at = p;
    return scanLeaf(text, shape) ? at : -1;
  },
  tally,
};

/**
 * The scan of one shape as one function, its structure unrolled: each field's name compared byte
 * by byte where it must stand, each list a loop, each leaf one call: an interpreter walking the
 * shape for every value took twice as long on the bench's questionnaire (bench/PROFILE.md, "Tenth
 * steps"). A selection too large or too deep to compile is refused. The code holds numbers only
 * (bytes, lengths, indexes): names and types reach it as bytes to compare and as `leaves[i]`, never
 * as text of the code.
 */
function compileScan(shape: ValueShape, selections: Selection[] | null): Scan {
  const leaves: LeafShape[] = [];
  let steps = 0;
  const lines: string[] = [];
  const value = (of: ValueShape, under: Selection[] | null): void => {
    if (of.kind === 'nonNull') {
      lines.push('if (t[p] === 110) return -1;');
      present(of.of, under);
      return;
    }
    lines.push('if (t[p] === 110) { if (t[p + 1] !== 117 || t[p + 2] !== 108 || t[p + 3] !== 108) return -1; p += 4; n += 9; } else {');
    present(of, under);
    lines.push('}');
  };
  const present = (of: ValueShape, under: Selection[] | null): void => {
    if (++steps > MAX_COMPILED_STEPS) throw new RangeError('a selection too large to compile a scan of');
    switch (of.kind) {
      case 'nonNull':
        // Not a type GraphQL has (a non-null of a non-null): refused, as the interpreter did.
        lines.push('return -1;');
        return;
      case 'list':
        lines.push('if (t[p] !== 91) return -1; p++; n += 2; if (t[p] === 93) p++; else for (;;) {');
        value(of.of, under);
        lines.push('const c = t[p++]; if (c === 93) break; if (c !== 44) return -1; }');
        return;
      case 'composite':
        if (!under) {
          lines.push('return -1;');
          return;
        }
        lines.push('if (t[p] !== 123) return -1; p++; n += 2;');
        under.forEach((selection, i) => {
          const field = selection as FieldSelection;
          if (i > 0) lines.push('if (t[p++] !== 44) return -1;');
          // A response name is a GraphQL name ([_A-Za-z][_0-9A-Za-z]*): its member's start is ASCII.
          const key = Buffer.from(field.jsonKey, 'latin1');
          lines.push(`if (${[...key].map((byte, k) => `t[p + ${k}] !== ${byte}`).join(' || ')}) return -1; p += ${key.length}; n += ${field.responseName.length + 4};`);
          value(field.value, field.selections);
        });
        lines.push('if (t[p++] !== 125) return -1;');
        return;
      case 'leaf':
        if (of.leaf === 'String') lines.push('p = h.string(t, p); if (p < 0) return -1;');
        else lines.push(`p = h.leaf(t, p, leaves[${leaves.push(of) - 1}]); if (p < 0) return -1;`);
    }
  };
  try {
    value(shape, selections);
  } catch (error) {
    if (error instanceof RangeError) return () => -1;
    throw error;
  }
  const factory = new Function('h', 'leaves', `'use strict'; return function scan(t, p) { let n = 0; ${lines.join('\n')} h.tally.bytes += n; return p; };`);
  return factory(scanHelpers, leaves) as Scan;
}

function scanLeaf(text: Buffer, shape: Extract<ValueShape, { kind: 'leaf' }>): boolean {
  const first = text[at];
  switch (shape.leaf) {
    case 'String':
      return first === QUOTE && scanString(text);
    case 'enum': {
      const start = at;
      if (first !== QUOTE || !scanString(text)) return false;
      const name = text.toString('utf8', start + 1, at - 1);
      // A name with an escape in it is no enum value's (names are [_A-Za-z0-9]).
      return name.indexOf('\\') < 0 && isEnumType(shape.type) && shape.type.getValue(name) !== undefined;
    }
    case 'Boolean':
      return scanLiteral(text);
    case 'Int':
      return scanNumber(text, true);
    case 'Float':
      return scanNumber(text, false);
    case 'ID':
      return first === QUOTE ? scanString(text) : scanNumber(text, true);
    case 'custom':
      // Anything but an object or a list: a JSON value inside a scalar is not checked here.
      if (first === QUOTE) return scanString(text);
      if (first === 116 /* t */ || first === 102 /* f */) return scanLiteral(text);
      return scanNumber(text, false);
  }
}

function scanLiteral(text: Buffer): boolean {
  if (startsWith(text, 'true', at)) at += 4;
  else if (startsWith(text, 'false', at)) at += 5;
  else return false;
  tally.bytes += 9;
  return true;
}

/**
 * A number as `String(value)` writes it (JSON.stringify's form): a short integer checked by its
 * digits, anything else by writing the parsed number again. `integer`: only an integer (Int, ID).
 */
function scanNumber(text: Buffer, integer: boolean): boolean {
  const start = at;
  let end = at;
  for (let c = text[end]; (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69; c = text[++end]);
  if (end === start) return false;
  at = end;
  tally.bytes += 9;
  const negative = text[start] === 45 ? 1 : 0;
  const digits = end - start - negative;
  let plainInteger = digits > 0 && digits <= 15;
  for (let i = start + negative; plainInteger && i < end; i++) {
    const c = text[i];
    plainInteger = c >= 48 && c <= 57;
  }
  if (plainInteger) {
    // No leading zero, and no -0 (JSON.stringify writes 0): `0` is the one integer that starts with one.
    return text[start + negative] !== 48 || (digits === 1 && !negative);
  }
  // Most of a questionnaire's numbers are short fractions (weights, scores): checked by their digits too.
  if (!integer && shortDecimal(text, start + negative, end)) return true;
  const token = text.toString('latin1', start, end);
  const value = Number(token);
  if (String(value) !== token) return false;
  return !integer || INTEGER.test(token);
}

/**
 * Whether `text` from `from` to `end` is a decimal fraction that `String(Number(it))` writes back as
 * it is: `0` or digits with no leading zero, a point, digits not ending in `0`; at most 15
 * significant digits (a double tells every such decimal apart, so the shortest digits that give the
 * double back are these); at most five zeros after `0.` (from 1e-7 down String() writes an exponent).
 * False says only "not known here": the number is then checked by writing it again.
 */
function shortDecimal(text: Buffer, from: number, end: number): boolean {
  let i = from;
  let significant = 0;
  const belowOne = text[i] === 48;
  if (belowOne) i++;
  else for (let c = text[i]; c >= 48 && c <= 57 && i < end; c = text[++i]) significant++;
  if ((!belowOne && significant === 0) || text[i] !== 46 /* . */) return false;
  const fraction = ++i;
  if (belowOne) {
    while (i < end && text[i] === 48) i++;
    if (i - fraction > 5) return false;
  }
  for (; i < end; i++) {
    const c = text[i];
    if (c < 48 || c > 57) return false;
    significant++;
  }
  return end > fraction && text[end - 1] !== 48 && significant > 0 && significant <= 15;
}

/**
 * A string as JSON.stringify writes it: `"`, `\` and the control characters escaped (short forms
 * where JSON has them, else `\u00xx`), everything else as it is (the answer is valid UTF-8, so it
 * holds no lone surrogate). Counts it as the budget counts the string it stands for: its length in
 * UTF-16 code units up to 64, else its UTF-8 bytes.
 */
function scanString(text: Buffer): boolean {
  let i = at + 1;
  let length = 0;
  let utf8 = 0;
  for (;;) {
    // A run of printable ASCII but `"` and `\` (most strings are one): a code unit and a byte each.
    const run = i;
    let c = text[i];
    while (c >= 0x20 && c < 0x80 && c !== QUOTE && c !== BACKSLASH) c = text[++i];
    length += i - run;
    utf8 += i - run;
    if (c === QUOTE) break;
    if (c < 0x20 || i >= text.length) return false;
    if (c === BACKSLASH) {
      const escaped = text[i + 1];
      if (escaped === QUOTE || escaped === BACKSLASH || escaped === 98 || escaped === 102 || escaped === 110 || escaped === 114 || escaped === 116) {
        i += 2;
      } else if (escaped === 117 /* u */ && text[i + 2] === 48 && text[i + 3] === 48) {
        const high = text[i + 4];
        const low = text[i + 5];
        const lowValue = low >= 48 && low <= 57 ? low - 48 : low >= 97 && low <= 102 ? low - 87 : -1;
        if ((high !== 48 && high !== 49) || lowValue < 0) return false;
        const code = (high - 48) * 16 + lowValue;
        // \b \t \n \f \r have short forms, which JSON.stringify writes.
        if (code === 8 || code === 9 || code === 10 || code === 12 || code === 13) return false;
        i += 6;
      } else {
        return false;
      }
      length += 1;
      utf8 += 1;
    } else {
      i += 1;
      utf8 += 1;
      // A character's first byte counts it (a continuation byte, 10xxxxxx, does not); one of four
      // bytes (11110xxx) starts a character beyond the BMP, two code units.
      if (c >= 0xc0) length += c >= 0xf0 ? 2 : 1;
    }
  }
  at = i + 1;
  tally.bytes += (length > 64 ? utf8 : length) + 3;
  return true;
}

/** Whether the ASCII `word` is at `at` in `text`. */
function startsWith(text: Buffer, word: string, at: number): boolean {
  if (at + word.length > text.length) return false;
  for (let i = 0; i < word.length; i++) if (text[at + i] !== word.charCodeAt(i)) return false;
  return true;
}

/** One subtree found: where its text is, and the entity and field it is the value of. */
interface Found {
  start: number;
  end: number;
  bytes: number;
  entity: number;
  name: string;
  field: RawField;
}

/**
 * A subgraph's answer (`{"data":{"<list>":[{…},…]},…}`, its UTF-8 bytes) parsed with the subtrees
 * `raw` names kept as their bytes (RawJson), each checked by `scanPassthrough`; a subtree that does
 * not pass is parsed, and undefined (the caller decodes and parses the whole answer, as before)
 * when the answer is not valid UTF-8, the text around them is not compact JSON in that form, or a
 * name is met twice where the scan walks. The rest of the answer is checked here as JSON and parsed
 * by JSON.parse with each kept subtree in place of a `0`.
 */
export function parseWithRawSubtrees(text: Buffer, raw: RawSubtrees): Record<string, unknown> | undefined {
  // Invalid bytes would be decoded as U+FFFD, which the scan cannot tell: the whole answer then goes the decoder's way.
  if (!isUtf8(text)) return undefined;
  const found: Found[] = [];
  at = 0;
  try {
    if (!answerObject(text, raw, found) || !onlyWhitespaceAfter(text) || found.length === 0) return undefined;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  // Every cut is next to an ASCII byte of JSON's structure, never inside a character.
  let rest = '';
  let from = 0;
  for (const subtree of found) {
    rest += `${text.toString('utf8', from, subtree.start)}0`;
    from = subtree.end;
  }
  let body: { data: Record<string, Array<Record<string, unknown>>> };
  try {
    body = JSON.parse(rest + text.toString('utf8', from)) as typeof body;
  } catch {
    // Never for text the scan took (it is JSON); if it were, the whole text is parsed, as before.
    return undefined;
  }
  const entities = body.data[raw.list]!;
  for (const subtree of found) entities[subtree.entity]![subtree.name] = new RawJson(text.subarray(subtree.start, subtree.end), subtree.bytes, subtree.field.shape);
  return body;
}

/** Nothing but JSON's whitespace after the answer (a server may end its answer with a newline, as Apollo Server's do). */
function onlyWhitespaceAfter(text: Buffer): boolean {
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false;
  }
  return true;
}

/** The members of an object, `member` reading each value (its name given); false when not an object of compact JSON or a name comes twice. */
function members(text: Buffer, member: (name: string) => boolean): boolean {
  if (text[at] !== 123 /* { */) return false;
  at++;
  if (text[at] === 125) {
    at++;
    return true;
  }
  const seen = new Set<string>();
  for (;;) {
    const start = at;
    if (text[at] !== QUOTE || !skipString(text)) return false;
    const name = text.toString('utf8', start + 1, at - 1);
    if (name.indexOf('\\') >= 0 || seen.has(name)) return false;
    seen.add(name);
    if (text[at++] !== COLON || !member(name)) return false;
    const next = text[at++];
    if (next === 125) return true;
    if (next !== COMMA) return false;
  }
}

function answerObject(text: Buffer, raw: RawSubtrees, found: Found[]): boolean {
  return members(text, (name) => (name === 'data' && text[at] === 123 ? dataObject(text, raw, found) : skipValue(text)));
}

function dataObject(text: Buffer, raw: RawSubtrees, found: Found[]): boolean {
  return members(text, (name) => (name === raw.list && text[at] === 91 ? entityList(text, raw, found) : skipValue(text)));
}

function entityList(text: Buffer, raw: RawSubtrees, found: Found[]): boolean {
  at++;
  if (text[at] === 93) {
    at++;
    return true;
  }
  for (let entity = 0; ; entity++) {
    const ok =
      text[at] === 123
        ? members(text, (name) => {
            const field = raw.fields.get(name);
            if (!field) return skipValue(text);
            const start = at;
            const scanned = scanPassthrough(text, start, field.shape, field.selections);
            if (!scanned) {
              at = start;
              return skipValue(text);
            }
            found.push({ start, end: scanned.end, bytes: scanned.bytes, entity, name, field });
            at = scanned.end;
            return true;
          })
        : skipValue(text);
    if (!ok) return false;
    const next = text[at++];
    if (next === 93) return true;
    if (next !== COMMA) return false;
  }
}

/** Any JSON value without whitespace, checked by JSON's grammar (the text around kept subtrees must be JSON for the parse to mean what the scan saw). */
function skipValue(text: Buffer): boolean {
  const c = text[at];
  if (c === QUOTE) return skipString(text);
  if (c === 123) return members(text, () => skipValue(text));
  if (c === 91) {
    at++;
    if (text[at] === 93) {
      at++;
      return true;
    }
    for (;;) {
      if (!skipValue(text)) return false;
      const next = text[at++];
      if (next === 93) return true;
      if (next !== COMMA) return false;
    }
  }
  for (const literal of ['true', 'false', 'null']) {
    if (startsWith(text, literal, at)) {
      at += literal.length;
      return true;
    }
  }
  return skipNumber(text);
}

/** A number by JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. */
function skipNumber(text: Buffer): boolean {
  let i = at;
  if (text[i] === 45 /* - */) i++;
  if (text[i] === 48) i++;
  else if (!isDigit(text[i])) return false;
  else while (isDigit(text[i])) i++;
  if (text[i] === 46 /* . */) {
    if (!isDigit(text[++i])) return false;
    while (isDigit(text[i])) i++;
  }
  if (text[i] === 101 || text[i] === 69 /* e E */) {
    if (text[i + 1] === 43 || text[i + 1] === 45) i++;
    if (!isDigit(text[++i])) return false;
    while (isDigit(text[i])) i++;
  }
  at = i;
  return true;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 48 && c <= 57;
}

/** A string by JSON's grammar (any escape JSON allows), the scan after its closing quote. */
function skipString(text: Buffer): boolean {
  let i = at + 1;
  for (;;) {
    const c = text[i];
    if (c === QUOTE) break;
    if (c < 0x20 || i >= text.length) return false;
    if (c === BACKSLASH) {
      const escaped = text[i + 1];
      if (escaped === 117) {
        if (!/^[0-9a-fA-F]{4}$/.test(text.toString('latin1', i + 2, i + 6))) return false;
        i += 6;
      } else if (escaped === QUOTE || escaped === BACKSLASH || escaped === 47 || escaped === 98 || escaped === 102 || escaped === 110 || escaped === 114 || escaped === 116) {
        i += 2;
      } else {
        return false;
      }
    } else {
      i += 1;
    }
  }
  at = i + 1;
  return true;
}
