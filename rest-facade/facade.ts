import { type IncomingMessage, type RequestListener, type Server, type ServerResponse, createServer } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { DomainError, toDomainError } from '../kernel/errors.js';
import { fromGraphQLError } from '../kernel/graphql/graphql-errors.js';
import { type AccessControl, requestContext } from '../kernel/graphql/request-context.js';
import type { Gateway } from '../gateway/gateway.js';
import { type BodyLimits, readJsonBody, readRawBody } from './http/json-body.js';
import { requestIdOf } from './http/request-id.js';
import { type CompiledRoute, type ErrorPolicy, type FacadeRequest, type FacadeResponse, matchRoute } from './route-table.js';

export interface FacadeOptions {
  routes: CompiledRoute[];
  errors: ErrorPolicy;
  gateway: Gateway;
  access: AccessControl;
  limits: BodyLimits;
  /** Told about every answer (metrics); `route` is the route's path pattern, or null when none matched. */
  observe?: (answer: { route: string | null; method: string; status: number; seconds: number }) => void;
  /** Told about failures that are not the caller's fault (logged without request data). */
  onInternalError?: (error: unknown) => void;
}

/** A facade's request listener, with `listen` like an express app's. */
export type FacadeApp = RequestListener & { listen(port: number, host: string): Server };

/**
 * A REST facade: matches the route table, reads the body, runs the route's one GraphQL operation
 * through the gateway, and shapes the answer. Every non-2xx goes through the facade's error policy.
 *
 * A bare Node request listener, not an express app: the facade routes, parses and answers by
 * itself, and express's per-request work (router, req/res prototype swap, parseurl) was about 10%
 * of a GET /models request's CPU in the profile (bench/PROFILE.md) for nothing the facade used.
 */
export function createFacade(options: FacadeOptions): FacadeApp {
  const listener: RequestListener = (req, res) => {
    void handle(options, req, res);
  };
  return Object.assign(listener, { listen: (port: number, host: string) => createServer(listener).listen(port, host) });
}

async function handle(options: FacadeOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = process.hrtime.bigint();
  const requestId = requestIdOf(req);
  const path = (req.url ?? '/').split('?')[0]!;
  const match = matchRoute(options.routes, req.method ?? 'GET', path);
  let answer: FacadeResponse;
  try {
    answer = await answerFor(options, req, match, requestId);
  } catch (error) {
    if (!(error instanceof DomainError)) options.onInternalError?.(error);
    answer = options.errors(toDomainError(error));
  }
  send(res, answer, requestId);
  options.observe?.({
    route: match && 'route' in match ? match.route.path : null,
    method: req.method ?? 'GET',
    status: answer.status,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
  });
}

async function answerFor(options: FacadeOptions, req: IncomingMessage, match: ReturnType<typeof matchRoute>, requestId: string): Promise<FacadeResponse> {
  if (!match) throw new DomainError('NOT_FOUND', `no such path: ${req.method} ${(req.url ?? '/').split('?')[0]}`);
  if (!('route' in match)) {
    const refused = options.errors(new DomainError('METHOD_NOT_ALLOWED', `method ${req.method} is not allowed here`, { allowed: match.allowed }));
    return { ...refused, headers: { ...refused.headers, allow: match.allowed.join(', ') } };
  }
  const { route, params } = match;
  const request: FacadeRequest = {
    params,
    header: (name) => headerOf(req, name),
    body: route.body === 'json' ? await readJsonBody(req, options.limits) : route.body === 'raw' ? await readRawBody(req, options.limits) : undefined,
  };
  const context = requestContext(options.access, { header: request.header, remoteAddress: req.socket.remoteAddress }, requestId);
  if (route.local) {
    if (route.authorize) await context.authorize(route.authorize);
    return route.local(request);
  }
  const result = await options.gateway.execute(route.prepared!, route.variables?.(request) ?? {}, context);
  if (result.errors?.length) throw fromGraphQLError(firstError(result));
  return route.respond!(result.data, request);
}

function firstError(result: ExecutionResult): { message: string; extensions?: Record<string, unknown> } {
  return result.errors![0]!;
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function send(res: ServerResponse, answer: FacadeResponse, requestId: string): void {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...answer.headers };
  let body: string | Buffer | undefined;
  if (answer.body === undefined) body = undefined;
  else if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) body = answer.body;
  else {
    body = JSON.stringify(answer.body);
    headers['content-type'] ??= 'application/json';
  }
  // A known length instead of chunked encoding: headers and body then leave in one write instead
  // of a writev of header, chunk size, body and terminator (13% of GET /models CPU, bench/PROFILE.md).
  if (body !== undefined && !('content-length' in headers)) headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(answer.status, headers);
  res.end(body);
}
