import type { IncomingMessage } from 'node:http';
import { DomainError } from '../../kernel/errors.js';
import { type BodyLimits, checkJsonBytes } from '../../kernel/http/json-bytes.js';

/** `application/json` or any `+json` type, parameters ignored. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads and parses a JSON request body: 415 without a JSON content type, 413 past the limit
 * (counting bytes as they arrive, not trusting Content-Length), 400 for bytes that are not UTF-8,
 * for nesting past the depth limit (both checked before parsing) and for malformed JSON.
 */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
  }
  const bytes = await readRawBody(req, limits);
  checkJsonBytes(bytes, limits.maxDepth);
  try {
    return JSON.parse(bytes.toString('utf8'));
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
