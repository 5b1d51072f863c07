import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import type { GraphQLError, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { executeSubgraph } from '../kernel/graphql/execute-subgraph.js';
import { DocumentCache } from '../kernel/graphql/document-cache.js';
import { withoutSuggestions } from '../kernel/graphql/no-introspection.js';
import { DomainError } from '../kernel/errors.js';
import { type AccessControl, type RequestContext, requestContext } from '../kernel/graphql/request-context.js';
import { graphqlJsonBody, graphqlRefusal } from '../kernel/http/graphql-body.js';
import type { BodyLimits } from '../kernel/http/json-bytes.js';
import { credentialSourceOf } from '../kernel/identity/identity.js';
import type { Answer, Exchange, RequestPipeline } from '../pipeline/pipeline.js';
import { ADMIN_DOOR, graphqlDoor } from '../pipeline/graphql-door.js';
import { metricsDisabled } from '../kernel/metrics.js';
import type { RenderedMetrics } from './cluster-metrics.js';
import { GATEWAY_SECRET_HEADER } from '../pipeline/gateway-secret.js';
import { followGatewayDeadline } from '../pipeline/request-budget.js';

export interface SubgraphServerOptions {
  schema: GraphQLSchema;
  access: AccessControl;
  body: BodyLimits;
  /** GRAPHQL_INTROSPECTION: `__schema`, `__type` and federation's `_service` answer only when true. */
  introspection: boolean;
  /** GATEWAY_SUBGRAPH_SECRET: the gateway's proof that a request comes from it. */
  gatewaySecret: string;
  /** The door's name in the request pipeline (`subgraph:models`, …). */
  door: string;
  /** Its door's concerns: request id, budget, the size and operation limits of a direct caller's documents, the log line of a 5xx. */
  pipeline: RequestPipeline;
  /** This process's Prometheus exposition (`GET /admin/metrics`), or null when METRICS_ENABLED is not true. */
  metrics: (() => Promise<RenderedMetrics>) | null;
}

/**
 * One subgraph behind its own GraphQL endpoint (distributed mode). It verifies the caller like the
 * edge does (DECISIONS section 2), before the document is even parsed: every request must carry
 * credentials that authenticate, from the caller's own headers forwarded by the gateway; it trusts no
 * asserted identity. One exception keeps the contract's public probes working over the hop
 * (`GET /admin/health`, the records `/health` and `/ready`, the indicator and impact facades, which
 * do not authenticate callers): a request that proves it comes from our gateway (the shared secret)
 * may run the fields that need no identity; any other field still authenticates the caller itself.
 * `GET /health` is the subgraph's own liveness probe; `GET /admin/metrics` its Prometheus metrics,
 * authenticated and authorized as on the core facade.
 */
export function subgraphApp(options: SubgraphServerOptions): express.Express {
  // One cache for every sender: a direct caller's documents meet the size limits first (below).
  const documents = new DocumentCache(options.schema, { introspection: options.introspection });
  const fromGateway = secretMatcher(options.gatewaySecret);
  const door = graphqlDoor('subgraph', options.door);
  const readBody = graphqlJsonBody(options.body);
  const app = express();
  app.disable('x-powered-by');
  // Its answers go to a gateway by POST and are never revalidated: hashing each (107 KB for a questionnaire) for an ETag is waste.
  app.disable('etag');
  app.use(
    '/graphql',
    (req, res) =>
      void options.pipeline.run(door, req, res, async (exchange) => {
        if (req.method !== 'POST') throw new DomainError('NOT_FOUND', NOT_FOUND);
        await readBody(req, res);
        return answer(options, documents, fromGateway(req.headers[GATEWAY_SECRET_HEADER]) ? 'gateway' : 'caller', req, exchange);
      }),
  );
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/admin/metrics', (req, res) => void options.pipeline.run(ADMIN_DOOR, req, res, (exchange) => metricsAnswer(options, req, exchange)));
  // Anything else is a JSON 404 in the GraphQL error shape, as on the gateway's port, never express's HTML page.
  app.use((_req, res) => {
    const { status, headers, body } = graphqlRefusal(new DomainError('NOT_FOUND', NOT_FOUND));
    res.status(status).set(headers).json(body);
  });
  return app;
}

const NOT_FOUND = 'not found: this port serves POST /graphql, GET /health and GET /admin/metrics';

/** Rules of the core facade's `/admin/metrics`: the caller authorized first, then 404 when metrics are off. */
async function metricsAnswer(options: SubgraphServerOptions, req: express.Request, exchange: Exchange): Promise<Answer> {
  exchange.route = '/admin/metrics';
  await requestContext(options.access, credentialSourceOf(req), exchange).authorize('admin.metrics');
  if (!options.metrics) throw metricsDisabled();
  const { contentType, body } = await options.metrics();
  return { status: 200, headers: { 'content-type': contentType }, body };
}

async function answer(options: SubgraphServerOptions, documents: DocumentCache, sender: 'gateway' | 'caller', req: express.Request, exchange: Exchange): Promise<Answer> {
  const context = requestContext(options.access, credentialSourceOf(req), exchange);
  if (sender === 'caller') await context.identity();
  else followGatewayDeadline(context.budget, req);
  const { query, variables, operationName } = (req.body ?? {}) as { query?: unknown; variables?: Record<string, unknown>; operationName?: string };
  const result = await options.pipeline.graphql({
    exchange,
    schema: options.schema,
    source: { text: typeof query === 'string' ? query : '', operationName, documents },
    variables: variables ?? {},
    // A direct caller's document meets the limits the edge applies (the gateway's were met there).
    concerns: sender === 'caller',
    execute: (document) => executeSubgraph({ schema: options.schema, document, variableValues: variables, operationName, contextValue: context satisfies RequestContext }),
  });
  // A breached budget is answered alone, with its status; the gateway takes it as its own breach.
  if (context.budget.breach) throw context.budget.breach;
  return { status: 200, body: options.introspection || !result.errors ? result : { ...result, errors: result.errors.map(hidingSuggestions) } };
}

/** With introspection off, a variable that does not coerce gets no "Did you mean …?" either (no-introspection.ts). */
function hidingSuggestions(error: GraphQLError): GraphQLFormattedError {
  return { ...error.toJSON(), message: withoutSuggestions(error.message) };
}

/** Compares in constant time (digests of equal length), so the secret cannot be guessed byte by byte. */
function secretMatcher(secret: string): (presented: string | string[] | undefined) => boolean {
  const expected = createHash('sha256').update(secret).digest();
  return (presented) => typeof presented === 'string' && timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
}
