import { isUtf8 } from 'node:buffer';
import { DomainError } from '../errors.js';
import { depthExceededAt } from '../json-depth.js';

export interface BodyLimits {
  /** `SERVER_REQUEST_MAX_BYTES`: larger bodies are 413. */
  maxBytes: number;
  /** `SERVER_JSON_MAX_DEPTH`: bodies nested deeper are 400. */
  maxDepth: number;
}

/**
 * What every JSON request body must be before it is parsed, whichever door it comes in by (the REST
 * facades, `/graphql`, a subgraph port): UTF-8 (a decoder would otherwise replace bad bytes with
 * U+FFFD and accept a body the client never meant), and no deeper than `SERVER_JSON_MAX_DEPTH`
 * (parsers, validators and the store recurse; one counting pass refuses hostile nesting first).
 */
export function checkJsonBytes(bytes: Uint8Array, maxDepth: number): void {
  if (!isUtf8(bytes)) throw new DomainError('BAD_REQUEST', 'request body is not valid UTF-8');
  if (depthExceededAt(bytes, maxDepth) >= 0) {
    throw new DomainError('BAD_REQUEST', `request body nests arrays and objects deeper than ${maxDepth} levels`, { max_depth: maxDepth });
  }
}
