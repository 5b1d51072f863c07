import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../kernel/errors.js';
import { depthExceededAt } from '../../kernel/json-depth.js';

export interface BodyLimits {
  maxBytes: number;
  /** `SERVER_JSON_MAX_DEPTH`: arrays and objects nested deeper than this are 400. */
  maxDepth: number;
}

/** `application/json` or any `+json` type, parameters ignored. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads and parses a JSON request body: 415 without a JSON content type, 413 past the limit
 * (counting bytes as they arrive, not trusting Content-Length), 400 for nesting past the depth
 * limit (checked before parsing) and for malformed JSON.
 */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
  }
  const text = (await readRawBody(req, limits)).toString('utf8');
  if (depthExceededAt(text, limits.maxDepth) >= 0) {
    throw new DomainError('BAD_REQUEST', `request body nests arrays and objects deeper than ${limits.maxDepth} levels`, { max_depth: limits.maxDepth });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError('BAD_REQUEST', 'request body is not valid JSON');
  }
}

/** The body's bytes, for facades that parse it their own documented way; 413 past the limit. */
export async function readRawBody(req: IncomingMessage, { maxBytes }: BodyLimits): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(maxBytes: number): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, { max_bytes: maxBytes });
}
