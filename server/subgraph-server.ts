import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema, getOperationAST } from 'graphql';
import { executeSubgraph } from '../kernel/graphql/execute-subgraph.js';
import { DocumentCache } from '../kernel/graphql/document-cache.js';
import { withoutSuggestions } from '../kernel/graphql/no-introspection.js';
import { DomainError, toDomainError } from '../kernel/errors.js';
import { answerWithinBudget } from '../kernel/graphql/budgeted-answer.js';
import type { DocumentSizeLimits } from '../kernel/graphql/document-size.js';
import { type AccessControl, type RequestContext, requestContext } from '../kernel/graphql/request-context.js';
import { graphqlJsonBody, graphqlRefusal, rejectUnreadableBody } from '../kernel/http/graphql-body.js';
import type { BodyLimits } from '../kernel/http/json-bytes.js';
import { credentialSourceOf } from '../kernel/identity/identity.js';
import type { Exchange, RequestPipeline } from '../gateway/pipeline/pipeline.js';
import { graphqlDoor, named, record, runnableOperation } from '../gateway/pipeline/graphql-door.js';
import { fragmentsOf } from '../gateway/pipeline/limits/measure.js';
import { GATEWAY_SECRET_HEADER } from '../gateway/pipeline/gateway-secret.js';

export interface SubgraphServerOptions {
  schema: GraphQLSchema;
  access: AccessControl;
  body: BodyLimits;
  limits: DocumentSizeLimits;
  /** GRAPHQL_INTROSPECTION: `__schema`, `__type` and federation's `_service` answer only when true. */
  introspection: boolean;
  /** GATEWAY_SUBGRAPH_SECRET: the gateway's proof that a request comes from it. */
  gatewaySecret: string;
  /** The door's name in the request pipeline (`subgraph:models`, …). */
  door: string;
  pipeline: RequestPipeline;
}

/**
 * One subgraph behind its own GraphQL endpoint (distributed mode). It verifies the caller like the
 * edge does (DECISIONS section 2), before the document is even parsed: every request must carry
 * credentials that authenticate, from the caller's own headers forwarded by the gateway; it trusts no
 * asserted identity. One exception keeps the contract's public probes working over the hop
 * (`GET /admin/health`, the records `/health` and `/ready`, the indicator and impact facades, which
 * do not authenticate callers): a request that proves it comes from our gateway (the shared secret)
 * may run the fields that need no identity; any other field still authenticates the caller itself.
 * `GET /health` is the subgraph's own liveness probe.
 */
export function subgraphApp(options: SubgraphServerOptions): express.Express {
  // The gateway's documents are its query planner's, from operations it has already held to the
  // limits (adding keys and `__typename`); a direct caller's are held to them here.
  const documents = {
    gateway: new DocumentCache(options.schema, { introspection: options.introspection }),
    caller: new DocumentCache(options.schema, { limits: options.limits, introspection: options.introspection }),
  };
  const fromGateway = secretMatcher(options.gatewaySecret);
  const door = graphqlDoor(options.pipeline, options.door);
  const app = express();
  app.disable('x-powered-by');
  // Its answers go to a gateway by POST and are never revalidated: hashing each (107 KB for a questionnaire) for an ETag is waste.
  app.disable('etag');
  app.use('/graphql', door.open);
  app.use(graphqlJsonBody(options.body));
  app.post('/graphql', async (req, res) => {
    const exchange = door.exchangeFor(res);
    const context = requestContext(options.access, credentialSourceOf(req), exchange);
    const sender = fromGateway(req.headers[GATEWAY_SECRET_HEADER]) ? 'gateway' : 'caller';
    try {
      if (sender === 'caller') await context.identity();
    } catch (error) {
      return void refuse(res, toDomainError(error), exchange);
    }
    const { query, variables, operationName } = (req.body ?? {}) as { query?: unknown; variables?: Record<string, unknown>; operationName?: string };
    const cached = documents[sender].get(typeof query === 'string' ? query : '');
    if ('refused' in cached) return void refuse(res, cached.refused, exchange);
    if ('errors' in cached) {
      return void res.status(400).json({ errors: cached.errors.map((e) => ({ message: e.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) });
    }
    try {
      const operation = runnableOperation(getOperationAST(cached.document, operationName), operationName);
      named(exchange, operation);
      // A direct caller's operation meets the limits the edge applies (the gateway's were met there).
      if (sender === 'caller') options.pipeline.operation({ exchange, operation, fragments: fragmentsOf(cached.document), schema: options.schema, variables: variables ?? {} });
    } catch (error) {
      if (error instanceof GraphQLError) return void refuseRequest(res, error, exchange);
      return void refuse(res, toDomainError(error), exchange);
    }
    const execution = () => executeSubgraph({ schema: options.schema, document: cached.document, variableValues: variables, operationName, contextValue: context satisfies RequestContext });
    const result = await answerWithinBudget(context.budget, execution);
    // A breached budget is answered alone, with its status; the gateway takes it as its own breach.
    if (context.budget.breach) return void refuse(res, context.budget.breach, exchange);
    if (result.errors) record(exchange, result.errors);
    res.json(options.introspection || !result.errors ? result : { ...result, errors: result.errors.map(hidingSuggestions) });
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Anything else is a JSON 404 in the GraphQL error shape, as on the gateway's port, never express's HTML page.
  app.use((_req, res) => {
    const { status, headers, body } = graphqlRefusal(new DomainError('NOT_FOUND', 'not found: this port serves POST /graphql and GET /health'));
    res.status(status).set(headers).json(body);
  });
  app.use(rejectUnreadableBody);
  return app;
}

/** With introspection off, a variable that does not coerce gets no "Did you mean …?" either (no-introspection.ts). */
function hidingSuggestions(error: GraphQLError): GraphQLFormattedError {
  return { ...error.toJSON(), message: withoutSuggestions(error.message) };
}

function refuse(res: express.Response, error: DomainError, exchange: Exchange): void {
  exchange.codes = [error.code];
  const { status, headers, body } = graphqlRefusal(error);
  res.status(status).set(headers).json(body);
}

/** A request naming no runnable operation (graphql-door.ts `runnableOperation`): the client's mistake. */
function refuseRequest(res: express.Response, error: GraphQLError, exchange: Exchange): void {
  const code = String(error.extensions.code);
  exchange.codes = [code];
  res.status(400).json({ errors: [{ message: error.message, extensions: { code } }] });
}

/** Compares in constant time (digests of equal length), so the secret cannot be guessed byte by byte. */
function secretMatcher(secret: string): (presented: string | string[] | undefined) => boolean {
  const expected = createHash('sha256').update(secret).digest();
  return (presented) => typeof presented === 'string' && timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
}
