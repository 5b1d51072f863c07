import { type RequestListener, type Server, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError } from '../errors.js';
import type { MessageClasses } from './express-messages.js';

/** `SERVER_HEADERS_TIMEOUT_MS`, `SERVER_REQUEST_TIMEOUT_MS`, `SERVER_KEEP_ALIVE_TIMEOUT_MS`, `SERVER_MAX_CONNECTIONS`. */
export interface ServerLimits {
  /** A client must have sent all its headers within this. */
  headersTimeoutMs: number;
  /** A client must have sent its whole request (headers and body) within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this many are closed as they arrive. */
  maxConnections: number;
}

/** A refusal in the envelope of the door a listener serves (a facade's error policy, GraphQL's shape). */
export type Refusal = (error: DomainError) => { status: number; headers?: Record<string, string>; body?: unknown };

/**
 * How often Node checks the header and request timeouts: its default (30 s) let a client trickling
 * its headers hold a connection for 87 s against a 60 s limit.
 */
const TIMEOUT_CHECK_MS = 1000;

/**
 * An HTTP server with the process's timeouts and connection cap, whose own refusals (headers too
 * large, a request sent too slowly, a request that is not HTTP) answer in the door's envelope
 * instead of Node's bare status line. `messages`: the request and answer classes, for an express
 * app (express-messages.ts).
 */
export function httpServer(handler: RequestListener, limits: ServerLimits, refuse: Refusal, messages?: MessageClasses): Server {
  const server = createServer({ headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_MS, ...messages }, handler);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, refuse));
  return server;
}

/** Node's own cases (nodejs.org/api/http.html, event 'clientError'), each as the contract's code. */
function refusalOf(error: NodeJS.ErrnoException): DomainError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError('HEADERS_TOO_LARGE', 'request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError('REQUEST_TIMEOUT', 'the request was not received in time');
    default:
      return new DomainError('BAD_REQUEST', 'malformed HTTP request');
  }
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, refuse: Refusal): void {
  // A connection the client reset, or one whose answer has begun, gets nothing more.
  if (error.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, headers = {}, body } = refuse(refusalOf(error));
  const text = body === undefined ? '' : JSON.stringify(body);
  const head = Object.entries({ 'content-type': 'application/json', ...headers, 'content-length': String(Buffer.byteLength(text)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? ''}\r\n${head}\r\n${text}`);
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
