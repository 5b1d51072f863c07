import type { IncomingMessage, RequestListener } from 'node:http';
import { DomainError } from '../kernel/errors.js';
import { fromGraphQLError } from '../kernel/graphql/graphql-errors.js';
import { type AccessControl, requestContext } from '../kernel/graphql/request-context.js';
import { credentialSourceOf } from '../kernel/identity/identity.js';
import type { Gateway } from '../gateway/gateway.js';
import type { PreparedOperation } from '../gateway/executor/executor.js';
import type { Door, Exchange, RequestPipeline } from '../pipeline/pipeline.js';
import type { BodyLimits } from '../kernel/http/json-bytes.js';
import { readJsonBody, readRawBody } from './http/json-body.js';
import type { Facade } from './facades.js';
import { type CompiledRoute, type FacadeRequest, type FacadeResponse, matchRoute } from './route-table.js';

export interface FacadeOptions {
  /** Its name is its door in the request pipeline, its error policy answers every non-2xx. */
  facade: Pick<Facade, 'name' | 'errors'>;
  routes: CompiledRoute[];
  gateway: Gateway;
  access: AccessControl;
  limits: BodyLimits;
  /** The request concerns every door runs (request id, metrics, the log line of a 5xx). */
  pipeline: RequestPipeline;
}

/**
 * A REST facade: matches the route table, reads the body, runs the route's one GraphQL operation
 * through the gateway, and shapes the answer. Every non-2xx goes through the facade's error policy.
 *
 * A bare Node request listener, not an express app: the facade routes, parses and answers by
 * itself, and express's per-request work (router, req/res prototype swap, parseurl) was about 10%
 * of a GET /models request's CPU in the profile (bench/PROFILE.md) for nothing the facade used.
 */
export function createFacade(options: FacadeOptions): RequestListener {
  const door: Door = { name: options.facade.name, kind: 'facade', protocol: 'rest', json: 'application/json', refuse: options.facade.errors };
  return (req, res) => {
    void options.pipeline.run(door, req, res, (exchange) => {
      const match = matchRoute(options.routes, req.method ?? 'GET', (req.url ?? '/').split('?')[0]!);
      exchange.route = match && 'route' in match ? match.route.path : null;
      return answerFor(options, req, match, exchange);
    });
  };
}

async function answerFor(options: FacadeOptions, req: IncomingMessage, match: ReturnType<typeof matchRoute>, exchange: Exchange): Promise<FacadeResponse> {
  if (!match) throw new DomainError('NOT_FOUND', `no such path: ${req.method} ${(req.url ?? '/').split('?')[0]}`);
  if (!('route' in match)) {
    const refused = options.facade.errors(new DomainError('METHOD_NOT_ALLOWED', `method ${req.method} is not allowed here`, { allowed: match.allowed }));
    return { ...refused, headers: { ...refused.headers, allow: match.allowed.join(', ') } };
  }
  const { route, params } = match;
  const request: FacadeRequest = {
    params,
    header: (name) => headerOf(req, name),
    body: route.body === 'json' ? await readJsonBody(req, options.limits) : route.body === 'raw' ? await readRawBody(req, options.limits) : undefined,
  };
  const context = requestContext(options.access, credentialSourceOf(req), exchange);
  if ('local' in route) {
    if (route.authorize) await context.authorize(route.authorize);
    return route.local(request);
  }
  return route.respond(await run(route.prepared!, route.variables?.(request) ?? {}), request);

  async function run(prepared: PreparedOperation, variables: Record<string, unknown>): Promise<unknown> {
    const result = await options.pipeline.graphql({
      exchange,
      schema: options.gateway.schema,
      source: prepared,
      variables,
      concerns: true,
      execute: () => options.gateway.execute({ operation: prepared, variables, context, shareInFlight: false }),
    });
    // The route's envelope carries the first error's code (the runner recorded every server failure).
    if (result.errors?.length) throw fromGraphQLError(result.errors[0]!);
    return result.data;
  }
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
