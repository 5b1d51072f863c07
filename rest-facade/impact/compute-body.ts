import { DomainError } from '../../kernel/errors.js';
import { DEFAULT_JSON_MAX_DEPTH, depthExceededAt } from '../../kernel/json-depth.js';

/**
 * FastAPI's reading of a request body, which the impact facade keeps (DECISIONS section 6): an HTTP
 * concern, so it lives here, not in the impact domain (compute-request.ts then validates the parsed body).
 *
 * A raw request body as FastAPI reads it: no bytes is no body (`undefined`); a UTF-8 BOM is skipped
 * (Python decodes bytes as `utf-8-sig`); text that is not JSON is a 422 `json_invalid` located where
 * CPython's `json` module stops, with its message in `ctx.error`. Bytes that are not UTF-8, and JSON
 * nested deeper than `maxDepth` (`SERVER_JSON_MAX_DEPTH`, in place of Python's recursion limit:
 * reached before any syntax error, as Python would reach it) are FastAPI's 400 "There was an error
 * parsing the body", here BAD_REQUEST.
 */
export function parseComputeBody(raw: string | Uint8Array, maxDepth = DEFAULT_JSON_MAX_DEPTH): unknown {
  if (raw.length === 0) return undefined;
  const decoded = typeof raw === 'string' ? raw : decodeUtf8(raw);
  const text = decoded.startsWith('\uFEFF') ? decoded.slice(1) : decoded;
  const tooDeepAt = depthExceededAt(text, maxDepth);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw jsonInvalid(text, tooDeepAt);
  }
  if (tooDeepAt >= 0) throw bodyParsingError();
  return body;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw bodyParsingError();
  }
}

/** `tooDeepAt`: where the nesting passed the limit (-1: nowhere); before the syntax error, it wins. */
function jsonInvalid(text: string, tooDeepAt: number): DomainError {
  let found: PythonJsonError;
  try {
    found = new PythonJsonScanner(text).firstError();
  } catch (error) {
    if (error instanceof RangeError) throw bodyParsingError(); // stack exhausted: Python's RecursionError
    throw error;
  }
  if (tooDeepAt >= 0 && tooDeepAt < found.position) throw bodyParsingError();
  // Python counts positions in code points, JavaScript in UTF-16 units.
  const position = Array.from(text.slice(0, found.position)).length;
  return new DomainError('UNPROCESSABLE', 'the request body is not valid JSON', [
    { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error: found.message } },
  ]);
}

function bodyParsingError(): DomainError {
  return new DomainError('BAD_REQUEST', 'There was an error parsing the body');
}

class PythonJsonError {
  constructor(
    readonly message: string,
    readonly position: number,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const SIMPLE_ESCAPES = '"\\/bfnrt';
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * Walks text the way CPython 3.12's C scanner (`_json.c`) does, only to find where and why
 * `json.loads` fails. Deliberate difference: `NaN`/`Infinity` are rejected ("Expecting value"), as
 * JSON (RFC 8259) and JSON.parse reject them. Only called on text JSON.parse has already refused.
 */
class PythonJsonScanner {
  constructor(private readonly text: string) {}

  firstError(): PythonJsonError {
    try {
      const end = this.skipWhitespace(this.value(this.skipWhitespace(0)));
      if (end !== this.text.length) return new PythonJsonError('Extra data', end);
    } catch (error) {
      if (error instanceof PythonJsonError) return error;
      throw error;
    }
    // Unreachable while the scanner accepts exactly what JSON.parse accepts; kept total for safety.
    return new PythonJsonError('Expecting value', 0);
  }

  private value(at: number): number {
    const char = this.text[at];
    if (char === '"') return this.string(at + 1);
    if (char === '{') return this.object(at + 1);
    if (char === '[') return this.array(at + 1);
    for (const word of ['null', 'true', 'false']) if (this.text.startsWith(word, at)) return at + word.length;
    NUMBER.lastIndex = at;
    if (NUMBER.test(this.text)) return NUMBER.lastIndex;
    throw new PythonJsonError('Expecting value', at);
  }

  /** `at` is just past the opening quote; returns the index past the closing one. */
  private string(at: number): number {
    const begin = at - 1;
    for (let i = at; ;) {
      if (i >= this.text.length) throw new PythonJsonError('Unterminated string starting at', begin);
      const code = this.text.charCodeAt(i);
      if (code === 0x22) return i + 1;
      if (code < 0x20) throw new PythonJsonError('Invalid control character at', i);
      i = code === 0x5c ? this.escape(i, begin) : i + 1;
    }
  }

  /** `at` is the backslash. */
  private escape(at: number, begin: number): number {
    const kind = this.text[at + 1];
    if (kind === undefined) throw new PythonJsonError('Unterminated string starting at', begin);
    if (kind !== 'u') {
      if (!SIMPLE_ESCAPES.includes(kind)) throw new PythonJsonError('Invalid \\escape', at);
      return at + 2;
    }
    // CPython wants room for a closing quote after the four digits before it reads them.
    if (at + 6 >= this.text.length || !HEX4.test(this.text.slice(at + 2, at + 6))) {
      throw new PythonJsonError('Invalid \\uXXXX escape', at + 1);
    }
    return at + 6;
  }

  private object(at: number): number {
    let i = this.skipWhitespace(at);
    if (this.text[i] === '}') return i + 1;
    for (;;) {
      if (this.text[i] !== '"') throw new PythonJsonError('Expecting property name enclosed in double quotes', i);
      i = this.skipWhitespace(this.string(i + 1));
      if (this.text[i] !== ':') throw new PythonJsonError("Expecting ':' delimiter", i);
      i = this.skipWhitespace(this.value(this.skipWhitespace(i + 1)));
      if (this.text[i] === '}') return i + 1;
      if (this.text[i] !== ',') throw new PythonJsonError("Expecting ',' delimiter", i);
      i = this.skipWhitespace(i + 1);
    }
  }

  private array(at: number): number {
    let i = this.skipWhitespace(at);
    if (this.text[i] === ']') return i + 1;
    for (;;) {
      i = this.skipWhitespace(this.value(i));
      if (this.text[i] === ']') return i + 1;
      if (this.text[i] !== ',') throw new PythonJsonError("Expecting ',' delimiter", i);
      i = this.skipWhitespace(i + 1);
    }
  }

  private skipWhitespace(at: number): number {
    WHITESPACE.lastIndex = at;
    WHITESPACE.test(this.text);
    return WHITESPACE.lastIndex;
  }
}
