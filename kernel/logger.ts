import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';

/**
 * Tokens, cookies and identity headers never reach the logs (DECISIONS section 2, doc 03): requests
 * are logged through an allow-list of headers, known credential fields are redacted wherever a caller
 * puts them, and JWT-looking or bearer strings in messages are masked.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  level?: LogLevel;
  name?: string;
  /** Extra headers to redact: the forward_auth identity headers (`authenticator.credentialHeaders`). */
  sensitiveHeaders?: readonly string[];
  /** Defaults to stdout; tests pass a stream to read what was written. */
  destination?: DestinationStream;
}

const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-gateway-secret'];
const CREDENTIAL_FIELDS = ['token', 'access_token', 'id_token', 'refresh_token', 'authorization', 'cookie', 'password'];
const LOGGED_HEADERS = ['host', 'content-type', 'content-length', 'accept', 'user-agent', 'x-request-id', 'traceparent'];
const SENSITIVE_QUERY = /token|secret|password|auth|code|key/i;
const CENSOR = '[Redacted]';

export function createLogger(options: LoggerOptions = {}): Logger {
  const headers = [...CREDENTIAL_HEADERS, ...(options.sensitiveHeaders ?? [])].map((h) => h.toLowerCase());
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name,
      redact: { paths: redactPaths(headers), censor: CENSOR },
      serializers: { req: serializeRequest, res: serializeResponse, err: stdSerializers.err },
      // The line as written: the message and every field at any depth (`{ reason }`, `{ registryError }`).
      hooks: { streamWrite: maskCredentials },
    },
    options.destination ?? pino.destination(1),
  );
}

/** Method, sanitized URL, peer and the allow-listed headers of a request: nothing else. */
export function serializeRequest(request: IncomingMessage): Record<string, unknown> {
  const headers = Object.fromEntries(LOGGED_HEADERS.filter((h) => h in request.headers).map((h) => [h, request.headers[h]]));
  return { method: request.method, url: sanitizeUrl(request.url ?? ''), remoteAddress: request.socket?.remoteAddress, headers };
}

function serializeResponse(response: ServerResponse): Record<string, unknown> {
  return { statusCode: response.statusCode };
}

/** Query parameters that may hold credentials (`?access_token=`) keep their name, not their value. */
function sanitizeUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const query = new URLSearchParams(url.slice(queryStart + 1));
  for (const name of new Set(query.keys())) if (SENSITIVE_QUERY.test(name)) query.set(name, CENSOR);
  return `${url.slice(0, queryStart)}?${query.toString()}`;
}

/** What each of maskCredentials' patterns needs to match: a JWT's `eyJ`, `Bearer` or `Basic`, a URL's `://`. */
const MAY_HOLD_CREDENTIALS = /eyJ|bearer|basic|:\/\//i;

/**
 * Credentials that can hide in free text (an error's message) or in a JSON log line: JWTs,
 * `Bearer`/`Basic` values, and a URL's `user:password@` and query string. A URL ends at white space,
 * a quote or a backslash, so that a JSON line stays JSON.
 */
export function maskCredentials(text: string): string {
  // Every line goes through here, an access log line per request: most hold none of the four
  // patterns' fixed parts, and one case-insensitive scan for them costs less than the four passes.
  if (!MAY_HOLD_CREDENTIALS.test(text)) return text;
  return text
    .replace(/\beyJ[\w-]*\.[\w-]*\.[\w-]*/g, CENSOR)
    .replace(/\b(Bearer|Basic)\s+[\w~+/.=-]+/gi, `$1 ${CENSOR}`)
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"\\]*@/gi, '$1')
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"\\]*)\?[^\s#"\\]*/gi, '$1');
}

/** Top-level and one-level-deep fields, and headers objects at the top or under any key (`req.headers`). */
function redactPaths(headers: readonly string[]): string[] {
  const fields = CREDENTIAL_FIELDS.flatMap((f) => [f, `*.${f}`]);
  const headerPaths = headers.flatMap((h) => [`headers[${JSON.stringify(h)}]`, `*.headers[${JSON.stringify(h)}]`]);
  return [...fields, ...headerPaths];
}
