import { type RequestListener, type Server, createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Cidr } from '../config/env.js';
import { DomainError } from '../errors.js';
import type { MessageClasses } from './express-messages.js';
import { type AddressBlocks, addressBlocks, clientOf } from './peer-address.js';

/**
 * `SERVER_HEADERS_TIMEOUT_MS`, `SERVER_REQUEST_TIMEOUT_MS`, `SERVER_KEEP_ALIVE_TIMEOUT_MS`, `SERVER_MAX_CONNECTIONS`,
 * `SERVER_MAX_CONNECTIONS_PER_CLIENT`, `SERVER_PROXY_ADDRESSES`.
 */
export interface ServerLimits {
  /** A client must have sent all its headers within this. */
  headersTimeoutMs: number;
  /** A client must have sent its whole request (headers and body) within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this many are closed as they arrive. */
  maxConnections: number;
  /**
   * Connections one client (see `clientOf`) may hold open at once; those beyond are closed as they
   * arrive, so that no client can take the `maxConnections` every other client needs.
   */
  maxConnectionsPerClient: number;
  /** Load balancers and proxies in front: many clients' connections come from each, held only to `maxConnections`. */
  proxyAddresses: readonly Cidr[];
}

export interface ServerOptions {
  /** The request and answer classes, for an express app (express-messages.ts). */
  messages?: MessageClasses;
  /** A client's connection beyond `maxConnectionsPerClient` was closed (told once, until the client holds none again). */
  clientAtCap?(client: string): void;
}

/** A refusal in the envelope of the door a listener serves (a facade's error policy, GraphQL's shape). */
export type Refusal = (error: DomainError) => { status: number; headers?: Record<string, string>; body?: unknown };

/**
 * How often Node checks the header and request timeouts: its default (30 s) let a client trickling
 * its headers hold a connection for 87 s against a 60 s limit.
 */
const TIMEOUT_CHECK_MS = 1000;

/**
 * How long a refused connection stays open after its answer, for the client to read it: closing at
 * once could reset the connection before the answer arrives, while unread bytes of the request
 * wait (a header over the size limit).
 */
const ANSWER_LINGER_MS = 1000;

/**
 * An HTTP server with the process's timeouts and connection caps, whose own refusals (headers too
 * large, a request sent too slowly, a request that is not HTTP) answer in the door's envelope
 * instead of Node's bare status line.
 */
export function httpServer(handler: RequestListener, limits: ServerLimits, refuse: Refusal, options: ServerOptions = {}): Server {
  const server = createServer({ headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_MS, ...options.messages }, handler);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  capPerClient(server, limits.maxConnectionsPerClient, addressBlocks(limits.proxyAddresses), options.clientAtCap);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, refuse));
  return server;
}

/**
 * Closes a client's connections beyond `limit` as they arrive (after Node's own set-up of the
 * connection, which its close undoes). Not counted: a proxy's connections, and this host's own
 * (a peer at the listener's own address: the indicators' calls to this process's core facade).
 * The count is this process's: with WORKERS, one client holds at most `limit` of each worker.
 */
function capPerClient(server: Server, limit: number, proxies: AddressBlocks, atCap: ServerOptions['clientAtCap']): void {
  const held = new Map<string, number>();
  const told = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const { remoteAddress } = socket;
    const client = clientOf(remoteAddress);
    if (client === null || remoteAddress === socket.localAddress || proxies.includes(remoteAddress)) return;
    const count = held.get(client) ?? 0;
    if (count >= limit) {
      socket.destroy();
      if (!told.has(client)) atCap?.(client);
      told.add(client);
      return;
    }
    held.set(client, count + 1);
    socket.once('close', () => {
      const left = held.get(client)! - 1;
      if (left > 0) {
        held.set(client, left);
      } else {
        held.delete(client);
        told.delete(client);
      }
    });
  });
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
  // Node's HTTP sockets stay half open after end() until the client closes its side: a client that
  // never does (and keeps trickling) would hold the connection, past every timeout, for good.
  const linger = setTimeout(() => socket.destroy(), ANSWER_LINGER_MS);
  socket.once('close', () => clearTimeout(linger));
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };
