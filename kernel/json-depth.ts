/** `SERVER_JSON_MAX_DEPTH` default: far beyond any document of the contracts, far below a stack's reach. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The offset at which a JSON text first opens more than `maxDepth` nested arrays or objects, or -1.
 * One pass with a counter: hostile nesting is refused before a parser (or the validators, GraphQL
 * and the store after it, which recurse) spends a stack on it. Works on UTF-8 bytes as on a string:
 * brackets, quotes and backslashes are single bytes that never occur inside a multi-byte character.
 */
export function depthExceededAt(text: string | Uint8Array, maxDepth: number): number {
  const bytes = typeof text === 'string' ? null : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = bytes ? bytes[i] : (text as string).charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) return i;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return -1;
}
