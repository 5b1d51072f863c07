import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import express, { type Express } from 'express';
import type { GraphQLFormattedError } from 'graphql';
import { DomainError, isErrorCode } from '../kernel/errors.js';
import { isGraphQLRequestCode } from '../kernel/graphql/graphql-errors.js';
import { type Answer, type Exchange, type RequestPipeline, refused } from '../pipeline/pipeline.js';
import { graphqlDoor } from '../pipeline/graphql-door.js';
import { apolloDoorPlugin, keptAnswer, stringifyAnswer } from './apollo-door.js';
import { refusalError } from '../kernel/graphql/budgeted-answer.js';
import { type AccessControl, type RequestContext, requestContext } from '../kernel/graphql/request-context.js';
import { credentialSourceOf } from '../kernel/identity/identity.js';
import type { Gateway } from './gateway.js';
import { graphqlJsonBody, graphqlRefusal } from '../kernel/http/graphql-body.js';
import type { BodyLimits } from '../kernel/http/json-bytes.js';
import { type TrustedDocuments, trustedDocumentsGuard } from './trusted-documents.js';
import { noIntrospection, withoutSuggestions } from '../kernel/graphql/no-introspection.js';
import { graphiqlRoutes, noGraphiql } from './ide.js';
import { apolloAnswers } from './apollo-answers.js';
import { boundedApolloCache } from './bounded-apollo-cache.js';

export interface GraphQLEndpointOptions {
  gateway: Gateway;
  supergraphSdl: string;
  access: AccessControl;
  introspection: boolean;
  /** GRAPHQL_IDE: GraphiQL for a browser's `GET /graphql` (ide.ts); default false. */
  ide?: boolean;
  body: BodyLimits;
  /** GRAPHQL_TRUSTED_DOCUMENTS: only these documents run (trusted-documents.ts); null or absent: any document, and automatic persisted queries. */
  trustedDocuments?: TrustedDocuments | null;
  /** The request concerns every door runs (request id, document size and operation limits, the log line of a server error). */
  pipeline: RequestPipeline;
  /** The port's admin paths (usage/usage-endpoint.ts), served before its 404. */
  admin?: express.Router;
}

/**
 * `POST/GET /graphql` for frontend teams: Apollo Server 5 on express 5 over the already loaded
 * gateway. The caller is authenticated at the edge before anything executes; CSRF prevention is
 * on; a document over the size limits is refused before it is validated, an operation over a
 * depth, alias or cost limit before any subgraph is called; errors keep their contract code and
 * lose everything else a client should not see. With introspection off, error messages do not
 * suggest field or type names either ("Did you mean …").
 */
export async function graphqlEndpoint(options: GraphQLEndpointOptions): Promise<{ app: Express; server: ApolloServer<RequestContext> }> {
  const door = graphqlDoor('graphql', 'graphql');
  const answers = apolloAnswers(options.gateway, options.supergraphSdl, options.pipeline);
  const server = new ApolloServer<RequestContext>({
    gateway: answers.gateway,
    // Apollo Server's own rule would tell users to "pass introspection: true to ApolloServer".
    introspection: true,
    validationRules: options.introspection ? [] : [noIntrospection()],
    hideSchemaDetailsFromClientErrors: !options.introspection,
    csrfPrevention: true,
    includeStacktraceInErrorResponses: false,
    stringifyResult: stringifyAnswer,
    formatError: options.introspection ? maskError : (formatted) => hideSuggestions(maskError(formatted)),
    // The process drains and stops everything itself (server/system.ts); Apollo's own handler would
    // re-raise SIGTERM after stopping only itself, killing the process before requests in flight end.
    stopOnTerminationSignals: false,
    // Parsed and validated documents by text hash, bounded (bounded-apollo-cache.ts): measured by their text.
    documentStore: boundedApolloCache((document) => document.loc?.end ?? 1),
    // Automatic persisted queries (Apollo Server's default) unless only trusted documents run: then
    // the guard hands over listed texts only, and nothing may register another. Their texts by
    // hash are kept with the same bound, from their registration (a client sends a text once).
    persistedQueries: options.trustedDocuments ? false : { cache: boundedApolloCache((query: string) => query.length, { admitFirstSighting: true }) },
    // Apollo's landing page loads Apollo Sandbox from a CDN: offline it is an error page. Our own
    // GraphiQL replaces it when GRAPHQL_IDE=true (ide.ts).
    // Cache hints: no subgraph gives any, so every answer's policy was Apollo's `no-store`, which
    // `noStore` below now sets. Apollo's plugin also pinned each request's whole pipeline in memory
    // until a full collection (bench/PROFILE.md, "Requests that die young").
    plugins: [apolloDoorPlugin(options.pipeline), answers.plugin, ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled()],
  });
  await server.start();
  const app = express();
  app.disable('x-powered-by');
  // No ETag computed over every answer (a SHA-1 of each 125 KB passport): GraphQL answers come by
  // POST and are not revalidated. GraphiQL's files keep theirs (sendFile computes its own).
  app.disable('etag');
  const ide = options.ide ?? false;
  // A browser's GET /graphql: GraphiQL, or a JSON 404 naming GRAPHQL_IDE; anything else goes on.
  app.use(ide ? graphiqlRoutes('/graphql') : noGraphiql('/graphql'));
  const readBody = graphqlJsonBody(options.body);
  const trusted = options.trustedDocuments ? trustedDocumentsGuard(options.trustedDocuments) : undefined;
  app.use(
    '/graphql',
    noStore,
    (req, res) =>
      void options.pipeline.run(door, req, res, async (exchange) => {
        await readBody(req, res);
        const query = queryOf(req.method === 'GET' ? req.query : req.body);
        if (query !== undefined) options.pipeline.document(exchange, query);
        trusted?.(req);
        return apolloAnswer(server, req, exchange, () => authenticatedContext(options.access, req, exchange));
      }),
  );
  if (options.admin) app.use(options.admin);
  gatewayRoutes(app, ide);
  return { app, server };
}

/**
 * Apollo Server's answer to a `/graphql` request, through its integration interface
 * (`executeHTTPGraphQLRequest`), read as @as-integrations/express5 reads a request; the pipeline's
 * runner writes it, a large one from its objects, one holding subgraphs' bytes as a buffer
 * (apollo-door.ts, `keptAnswer`). No operation of this graph is delivered incrementally (it has no
 * @defer).
 */
async function apolloAnswer(server: ApolloServer<RequestContext>, req: express.Request, exchange: Exchange, context: () => Promise<RequestContext>): Promise<Answer> {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  const at = req.url.indexOf('?');
  const httpGraphQLRequest = { method: req.method.toUpperCase(), headers, search: at < 0 ? '' : req.url.slice(at), body: req.body };
  const response = await server.executeHTTPGraphQLRequest({ httpGraphQLRequest, context });
  if (response.body.kind !== 'complete') throw new Error('an incremental answer: this endpoint writes complete answers only');
  return { status: response.status || 200, headers: Object.fromEntries(response.headers), body: keptAnswer(exchange) ?? response.body.string };
}

/** The document text a request carries, if any (a GET's in its parameters). */
function queryOf(request: unknown): string | undefined {
  const query = (request as { query?: unknown } | null)?.query;
  return typeof query === 'string' ? query : undefined;
}

/** No answer of `/graphql` may be stored by a cache: what it says depends on the caller and on the moment. */
const noStore: express.RequestHandler = (_req, res, next) => {
  res.setHeader('cache-control', 'no-store');
  next();
};

/**
 * The gateway port's other paths answer JSON, never express's HTML: `GET /` says where things are,
 * `GET /health` is the liveness probe (public, like a subgraph port's), anything else is a 404 in
 * the GraphQL error shape of this port's other refusals.
 */
function gatewayRoutes(app: Express, ide: boolean): void {
  app.get('/', (_req, res) => {
    res.json({ service: 'cerise-dpp-graphql-gateway', graphql: '/graphql', ide });
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.all(['/', '/health'], (_req, res) => {
    res.set('allow', 'GET, HEAD');
    refuse(res, new DomainError('METHOD_NOT_ALLOWED', 'method not allowed'));
  });
  app.use((_req, res) => refuse(res, new DomainError('NOT_FOUND', 'not found: this port serves /graphql, / and /health')));
}

function refuse(res: express.Response, error: DomainError): void {
  const { status, headers, body } = graphqlRefusal(error);
  res.status(status).set(headers).json(body);
}

/** The caller is authenticated before anything runs: UNAUTHORIZED (401) or AUTH_UNAVAILABLE (503). */
async function authenticatedContext(access: AccessControl, req: express.Request, exchange: Exchange): Promise<RequestContext> {
  const context = requestContext(access, credentialSourceOf(req), exchange);
  try {
    await context.identity();
  } catch (error) {
    // Apollo Server answers a context that fails with the refusal's status (refusalError).
    throw refusalError(refused(exchange, error));
  }
  return context;
}

/**
 * With introspection off, no message names what the schema hides: Apollo Server's
 * `hideSchemaDetailsFromClientErrors` cleans validation errors only, and a variable that does not
 * coerce (a misspelt input field or enum value) came out with "Did you mean …?" too.
 */
function hideSuggestions(formatted: GraphQLFormattedError): GraphQLFormattedError {
  return { ...formatted, message: withoutSuggestions(formatted.message) };
}

/**
 * Subgraph errors reach clients with their contract code and message (written for clients); any
 * other failure, such as a subgraph that is down, keeps only a code and a generic message, so no
 * stack trace or upstream body leaks.
 */
export function maskError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const code = formatted.extensions?.code;
  if (isErrorCode(code)) {
    return { message: formatted.message, path: formatted.path, extensions: { code, details: formatted.extensions?.details ?? null } };
  }
  if (isGraphQLRequestCode(code)) {
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  }
  return { message: 'internal error', path: formatted.path, extensions: { code: 'INTERNAL_ERROR' } };
}
