import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopAtScopeEnd } from './cleanup.js';

/** One GraphQL request a gateway sent to a subgraph through the proxy, and what came back. */
export interface CapturedFetch {
  query: string;
  operationName?: string;
  variables: Record<string, unknown>;
  /** The request's headers as the gateway sent them (lower-case names). */
  headers: IncomingHttpHeaders;
  /** The request's and the answer's body sizes. */
  bytesSent: number;
  bytesReceived: number;
  /** The answer's body, parsed (undefined when it is not JSON). */
  answer: unknown;
}

/** How long the proxy keeps a gateway's idle connection open. */
const IDLE_MS = 120_000;

/** Hop-by-hop headers: the proxy's own connections carry their own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

/**
 * A real HTTP server between a gateway and one subgraph (127.0.0.1, a port of its own): each POST is
 * read whole, recorded (its operation, variables, headers and sizes, and the subgraph's answer) and
 * relayed to the subgraph unchanged over a keep-alive connection, the answer relayed back with its
 * status and headers. A gateway pointed at `url` in place of the subgraph's own URL shows what it
 * sends: the bench's fetch comparison (bench/fetches.bench.ts) and the executor's tests of what a
 * subgraph receives. A body that is not a GraphQL request is relayed and recorded with an empty query.
 *
 *   const proxy = await CapturingProxy.start('http://127.0.0.1:4001/graphql');   // proxy.url
 *   … proxy.fetches; proxy.clear();
 */
export class CapturingProxy {
  readonly fetches: CapturedFetch[] = [];
  private readonly agent = new Agent({ keepAlive: true });
  private url_ = '';

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  static async start(target: string): Promise<CapturingProxy> {
    const proxy: CapturingProxy = new CapturingProxy(
      createServer((request, response) => void proxy.relay(request, response)),
      new URL(target),
    );
    // Idle connections stay open as long as a gateway keeps them: the proxy closing one as the gateway reuses it would be a failure of its own.
    proxy.server.keepAliveTimeout = IDLE_MS;
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy.url_ = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}${proxy.target.pathname}`;
    stopAtScopeEnd(() => proxy.stop());
    return proxy;
  }

  /** The URL to give a gateway in place of the subgraph's. */
  get url(): string {
    return this.url_;
  }

  clear(): void {
    this.fetches.length = 0;
  }

  async stop(): Promise<void> {
    const closed = this.server.listening ? new Promise<void>((resolve) => this.server.close(() => resolve())) : Promise.resolve();
    this.server.closeAllConnections();
    this.agent.destroy();
    await closed;
  }

  private async relay(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const body = await bodyOf(incoming);
    try {
      const answer = await this.forward(incoming, body, false);
      this.fetches.push({ ...graphqlRequestOf(body), headers: incoming.headers, bytesSent: body.length, bytesReceived: answer.body.length, answer: jsonOrUndefined(answer.body) });
      outgoing.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) }).end(answer.body);
    } catch {
      outgoing.writeHead(502, { 'content-type': 'text/plain' }).end('the subgraph could not be reached');
    }
  }

  /**
   * The request sent on to the subgraph, its answer read whole. A kept-alive connection the subgraph
   * closed as idle just as the request went out is retried once on a fresh one, as the gateway's
   * own client does (gateway/executor/remote-client.ts): the proxy must not add failures of its own.
   */
  private forward(incoming: IncomingMessage, body: Buffer, retried: boolean): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    const headers = withoutHopByHop(incoming.headers);
    return new Promise((resolve, reject) => {
      const upstream = httpRequest(this.target, { method: incoming.method, agent: this.agent, headers: { ...headers, 'content-length': String(body.length) } }, (answer) => {
        bodyOf(answer).then((received) => resolve({ status: answer.statusCode ?? 502, headers: withoutHopByHop(answer.headers), body: received }), reject);
      });
      upstream.once('error', (error: NodeJS.ErrnoException) => {
        if (upstream.reusedSocket && error.code === 'ECONNRESET' && !retried) resolve(this.forward(incoming, body, true));
        else reject(error);
      });
      upstream.end(body);
    });
  }
}

function withoutHopByHop(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

function jsonOrUndefined(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function graphqlRequestOf(body: Buffer): Pick<CapturedFetch, 'query' | 'operationName' | 'variables'> {
  const parsed = jsonOrUndefined(body) as { query?: unknown; operationName?: unknown; variables?: unknown } | undefined;
  return {
    query: typeof parsed?.query === 'string' ? parsed.query : '',
    ...(typeof parsed?.operationName === 'string' ? { operationName: parsed.operationName } : {}),
    variables: parsed?.variables && typeof parsed.variables === 'object' ? (parsed.variables as Record<string, unknown>) : {},
  };
}
