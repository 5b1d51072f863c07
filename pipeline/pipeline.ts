import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { type GraphQLRun, runGraphQL } from './graphql-run.js';
import type { MeasuredOperation } from './limits/measure.js';
import { type RequestContext, type RequestTrace, recordFailure, recordFirstFailure } from '../kernel/graphql/request-context.js';
import { NO_BUDGET } from '../kernel/request-budget.js';
import { DomainError, ERROR_STATUSES, toDomainError } from '../kernel/errors.js';
import { RequestMistake } from './request-mistake.js';
import { jsonPieces } from '../kernel/http/json-pieces.js';
import { LARGE_ANSWER_BYTES } from '../kernel/answer-memory.js';
import { Utf8Parts } from '../kernel/raw-json.js';

/**
 * One request through one of the doors (a REST facade's route, `/graphql`, a subgraph's port) as the
 * request pipeline's plugins see it. The door fills it in as the request goes; plugins read it when
 * the request arrives and when it is answered.
 */
/** The kinds of doors: a REST facade, `/graphql`, a subgraph's port, the admin paths of the gateway's port. */
export type DoorKind = 'facade' | 'graphql' | 'subgraph' | 'admin';

export interface Exchange extends RequestTrace {
  /** Where it came in: a facade's name (`core`, `records`, …), `graphql`, `admin` or `subgraph:<name>`, as logs and metrics name it. */
  readonly door: string;
  /** What kind of door that is (what a concern decides by, never the name). */
  readonly kind: DoorKind;
  /** A REST facade's route, or a GraphQL request (`/graphql`, a subgraph port). */
  readonly protocol: 'rest' | 'graphql';
  readonly method: string;
  /** The request's headers, for a plugin that reads one after the request arrived (the client's name). */
  readonly headers: IncomingHttpHeaders;
  /** process.hrtime.bigint() when it arrived. */
  readonly startedAt: bigint;
  /** The REST route's path pattern; null for GraphQL, and for a path no route matches. */
  route: string | null;
  /** The GraphQL operation the request ran (a REST route's own operation too), once known. */
  operationName: string | null;
  /** An operation without a name as the log names it: its type and root fields (`query { records }`). */
  anonymousOperation?: string;
  /** The HTTP status answered. */
  status: number;
  /** The error codes of the answer, as the door decided them. */
  codes: string[];
}

/** The operation a request is about to run, parsed and validated (a REST route's, or a client's). */
export interface PlannedRequest extends MeasuredOperation {
  exchange: Exchange;
}

/** One operation for a subgraph, as the query planner wrote it. */
export interface SubgraphRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

/** A subgraph's answer, as GraphQL over HTTP carries it. */
export interface SubgraphResponse {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
}

/** One fetch from the gateway to a remote subgraph, as it is about to be sent. */
export interface SubgraphFetch {
  readonly subgraph: string;
  readonly request: SubgraphRequest;
  /** The caller's context (its trace is the exchange). */
  readonly context: RequestContext;
  /** The HTTP headers to send; plugins add theirs. */
  readonly headers: Record<string, string>;
  /** Aborts the fetch, its answer's body included (the upstream timeout sets it). */
  signal?: AbortSignal;
}

/** What a door answers: a body that is neither a string, a Buffer nor UTF-8 parts is written as JSON (a large one in pieces). */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Where requests come in (a facade, `/graphql`, a subgraph port, the admin paths), and how it refuses one. */
export interface Door {
  /** The exchange's door: a facade's name (`core`, `records`, …), `graphql`, `admin` or `subgraph:<name>`. */
  readonly name: string;
  readonly kind: DoorKind;
  readonly protocol: Exchange['protocol'];
  /** The content type of its JSON answers. */
  readonly json: string;
  /** Its envelope for a refusal. */
  refuse(error: DomainError): Answer;
  /** A GraphQL door's answer to a client's mistake in GraphQL's terms. */
  mistake?(error: RequestMistake): Answer;
}

/** One concern of every request, whichever door it comes in by (request id, limits, metrics, …). */
export interface RequestPlugin {
  /** The request arrived, before anything of it ran. */
  onRequest?(exchange: Exchange, request: IncomingMessage): void;
  /** A client's document (not yet parsed) is about to be read: a plugin refuses it by throwing a DomainError. */
  onDocument?(exchange: Exchange, query: string): void;
  /** Its operation is about to run: a plugin refuses it by throwing a DomainError. */
  onOperation?(request: PlannedRequest): void;
  /** Its operation's result, before the door answers it: a plugin may answer another in its place (the budget's breach). */
  onResult?(exchange: Exchange, result: ExecutionResult): ExecutionResult;
  /** A remote subgraph fetch: a plugin may set headers or the signal, and must call `send` once. */
  onSubgraphFetch?(fetch: SubgraphFetch, send: () => Promise<SubgraphResponse>): Promise<SubgraphResponse>;
  /** The answer is decided (status and codes set), as it is sent. */
  onResponse?(exchange: Exchange): void;
}

/**
 * The request concerns every door runs, in one list (server/system.ts composes it): each is a small
 * plugin in this folder, in the manner of Hive Gateway's runtime plugins, so a concern has one home
 * and sees REST and GraphQL traffic alike.
 */
export class RequestPipeline {
  private readonly fetchHooks: NonNullable<RequestPlugin['onSubgraphFetch']>[];
  private readonly resultHooks: NonNullable<RequestPlugin['onResult']>[];

  constructor(private readonly plugins: readonly RequestPlugin[]) {
    this.fetchHooks = plugins.flatMap((plugin) => (plugin.onSubgraphFetch ? [plugin.onSubgraphFetch.bind(plugin)] : []));
    this.resultHooks = plugins.flatMap((plugin) => (plugin.onResult ? [plugin.onResult.bind(plugin)] : []));
  }

  /**
   * One request through `door`, whichever it is: the exchange begins (every plugin's `onRequest`),
   * `execute` answers it, or what it throws is refused in the door's envelope (the code recorded,
   * and an error that is no DomainError recorded as the server's failure for the log line); the
   * answer goes out with its `x-request-id`, then every plugin's `onResponse` (once a large answer
   * is written: the answer memory it holds is given back then).
   */
  async run(door: Door, request: IncomingMessage, response: ServerResponse, execute: (exchange: Exchange) => Promise<Answer>): Promise<void> {
    const exchange = this.begin(door, request);
    let answer: Answer;
    try {
      answer = asJson(await execute(exchange), door.json, exchange);
    } catch (error) {
      answer = asJson(refusal(door, exchange, error), door.json, exchange);
    }
    exchange.status = answer.status;
    await send(response, answer, exchange);
    this.end(exchange);
  }

  /** A client's document, before it is parsed: the size limits (document-size-limits.ts). */
  document(exchange: Exchange, query: string): void {
    for (const plugin of this.plugins) plugin.onDocument?.(exchange, query);
  }

  private begin(door: Door, request: IncomingMessage): Exchange {
    const exchange: Exchange = {
      door: door.name,
      kind: door.kind,
      protocol: door.protocol,
      method: request.method ?? 'GET',
      headers: request.headers,
      startedAt: process.hrtime.bigint(),
      requestId: '',
      route: null,
      operationName: null,
      status: 0,
      codes: [],
      failures: [],
      budget: NO_BUDGET,
    };
    for (const plugin of this.plugins) plugin.onRequest?.(exchange, request);
    return exchange;
  }

  operation(request: PlannedRequest): void {
    for (const plugin of this.plugins) plugin.onOperation?.(request);
  }

  /** An operation's result through every plugin's `onResult`, in order. */
  result(exchange: Exchange, result: ExecutionResult): ExecutionResult {
    for (const hook of this.resultHooks) result = hook(exchange, result);
    return result;
  }

  /** A GraphQL operation through the steps every GraphQL door shares (graphql-run.ts), this pipeline's concerns among them. */
  graphql(run: GraphQLRun): Promise<ExecutionResult> {
    return runGraphQL(this, run);
  }

  /** Sends a subgraph fetch through every plugin's hook, the first plugin outermost. */
  fetch(fetch: SubgraphFetch, send: () => Promise<SubgraphResponse>): Promise<SubgraphResponse> {
    const through = (index: number): Promise<SubgraphResponse> => (index < this.fetchHooks.length ? this.fetchHooks[index]!(fetch, () => through(index + 1)) : send());
    return through(0);
  }

  private end(exchange: Exchange): void {
    for (const plugin of this.plugins) plugin.onResponse?.(exchange);
  }
}

function refusal(door: Door, exchange: Exchange, error: unknown): Answer {
  if (error instanceof RequestMistake && door.mistake) {
    exchange.codes = error.errors.map((mistake) => mistake.code);
    return door.mistake(error);
  }
  return door.refuse(refused(exchange, error));
}

/**
 * A request refused, whichever step refused it (this runner's, or Apollo Server's at `/graphql`):
 * its code on the exchange, and when the server is at fault its cause for the log line: anything
 * that is no DomainError, or a 5xx one whose cause nothing recorded on the way (a JWKS outage's
 * AUTH_UNAVAILABLE). Returns the refusal as the door's envelope answers it.
 */
export function refused(exchange: Exchange, error: unknown): DomainError {
  const refusal = toDomainError(error);
  if (!(error instanceof DomainError)) recordFailure(exchange, error);
  else if (ERROR_STATUSES[refusal.code] >= 500) recordFirstFailure(exchange, error);
  exchange.codes = [refusal.code];
  return refusal;
}

/** Pieces are gathered up to this many characters before a write: fewer, larger writes. */
const WRITE_EVERY = 64 * 1024;
/**
 * How long a large answer waits for its client to take a chunk before the connection is closed:
 * between two writes, not for the whole answer (nginx's `send_timeout`), so a slow reader gets its
 * answer whole, and one that stopped reading gives back the answer memory it holds.
 */
const SEND_IDLE_MS = 30_000;

/**
 * An answer whose body is an object, as JSON text. Written while the request can still fail: an
 * answer too long for a string (an oversized page) is then a 500 with its cause in the log line,
 * where it threw past the door and took the process down. A large one (as its budget measured it)
 * stays an object, written piece by piece as it is serialised (`send`): never one string of it.
 */
function asJson(answer: Answer, type: string, exchange: Exchange): Answer {
  if (answer.body === undefined || written(answer.body)) return answer;
  const headers = { 'content-type': type, ...answer.headers };
  return { ...answer, headers, body: exchange.budget.answerBytes > LARGE_ANSWER_BYTES ? answer.body : JSON.stringify(answer.body) };
}

/** A body that is text already: a string, bytes, or UTF-8 parts (kernel/raw-json.ts). */
function written(body: unknown): body is string | Buffer | Utf8Parts {
  return typeof body === 'string' || Buffer.isBuffer(body) || body instanceof Utf8Parts;
}

async function send(response: ServerResponse, answer: Answer, exchange: Exchange): Promise<void> {
  const headers: Record<string, string> = { 'x-request-id': exchange.requestId, ...answer.headers };
  const body = answer.body;
  if (body !== undefined && !written(body)) return sendPieces(response, answer.status, headers, body, exchange);
  if (body instanceof Utf8Parts) return sendParts(response, answer.status, headers, body);
  // A known length instead of chunked encoding: headers and body then leave in one write instead
  // of a writev of header, chunk size, body and terminator (13% of GET /models CPU, bench/PROFILE.md).
  if (body !== undefined && !('content-length' in headers)) headers['content-length'] = String(Buffer.byteLength(body));
  response.writeHead(answer.status, headers);
  response.end(body);
}

/**
 * UTF-8 parts in one write, none copied into a buffer of the whole: the socket stays corked while
 * the parts are handed to it, and `end` uncorks it, so the head and every part leave in one `writev`.
 */
function sendParts(response: ServerResponse, status: number, headers: Record<string, string>, body: Utf8Parts): void {
  response.writeHead(status, { ...headers, 'content-length': String(body.byteLength) });
  response.cork();
  for (const part of body.parts) response.write(part);
  response.end();
}

/**
 * A large answer as it is serialised, in chunks: each handed to the socket, and the next made once
 * the socket has taken the last (its `drain`), so that beside the answer's objects this process
 * holds a few pieces, never the whole text twice (as a string, then as the socket's buffer). A
 * client that takes nothing for SEND_IDLE_MS has its connection closed.
 */
async function sendPieces(response: ServerResponse, status: number, headers: Record<string, string>, body: unknown, exchange: Exchange): Promise<void> {
  response.writeHead(status, headers);
  let pending = '';
  try {
    for (const piece of jsonPieces(body)) {
      if (response.destroyed) return; // the client went away
      pending += piece;
      if (pending.length < WRITE_EVERY) continue;
      const full = !response.write(pending);
      pending = '';
      if (full && (await drained(response)) === 'idle') throw new Error(`the client took nothing of its answer for ${SEND_IDLE_MS} ms: its connection was closed`);
    }
    response.end(pending);
  } catch (error) {
    // The status is sent: the connection is all that can say the answer is not whole.
    recordFailure(exchange, error);
    response.destroy();
  }
}

/** Whether the response drained, its connection closed first, or neither within SEND_IDLE_MS. */
function drained(response: ServerResponse): Promise<'drained' | 'closed' | 'idle'> {
  return new Promise((resolve) => {
    const settle = (outcome: 'drained' | 'closed' | 'idle') => () => {
      clearTimeout(timer);
      response.off('drain', onDrain);
      response.off('close', onClose);
      resolve(outcome);
    };
    const onDrain = settle('drained');
    const onClose = settle('closed');
    const timer = setTimeout(settle('idle'), SEND_IDLE_MS);
    response.once('drain', onDrain);
    response.once('close', onClose);
  });
}
