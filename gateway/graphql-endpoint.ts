import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Express } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isErrorCode } from '../kernel/errors.js';
import { type AccessControl, type RequestContext, requestContext } from '../kernel/graphql/request-context.js';
import { credentialSourceOf } from '../kernel/identity/identity.js';
import { requestIdOf } from '../rest-facade/http/request-id.js';
import type { Gateway } from './gateway.js';
import { depthLimit } from './plugins/depth-limit.js';
import { aliasLimit } from './plugins/alias-limit.js';
import { costLimit } from './plugins/cost-limit.js';
import { rejectUnreadableBody } from './unreadable-body.js';

export interface GraphQLEndpointOptions {
  gateway: Gateway;
  supergraphSdl: string;
  access: AccessControl;
  introspection: boolean;
  maxRequestBytes: number;
  limits: OperationLimits;
  plugins?: ApolloServerPlugin<RequestContext>[];
}

/** Per-operation limits (GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_ALIASES, GRAPHQL_MAX_COST). */
export interface OperationLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

const STATUS_OF_CODE: Record<string, number> = { UNAUTHORIZED: 401, AUTH_UNAVAILABLE: 503 };

/**
 * `POST/GET /graphql` for frontend teams: Apollo Server 5 on express 5 over the already loaded
 * gateway. The caller is authenticated at the edge before anything executes; CSRF prevention is
 * on; operations over a depth, alias or cost limit are refused before any subgraph is called;
 * errors keep their contract code and lose everything else a client should not see.
 */
export async function graphqlEndpoint(options: GraphQLEndpointOptions): Promise<{ app: Express; server: ApolloServer<RequestContext> }> {
  const server = new ApolloServer<RequestContext>({
    gateway: sharedGateway(options.gateway, options.supergraphSdl) as never,
    introspection: options.introspection,
    csrfPrevention: true,
    includeStacktraceInErrorResponses: false,
    formatError: maskError,
    // The process drains and stops everything itself (server/system.ts); Apollo's own handler would
    // re-raise SIGTERM after stopping only itself, killing the process before requests in flight end.
    stopOnTerminationSignals: false,
    plugins: [depthLimit(options.limits.maxDepth), aliasLimit(options.limits.maxAliases), costLimit(options.limits.maxCost), ...(options.plugins ?? [])],
  });
  await server.start();
  const app = express();
  app.disable('x-powered-by');
  app.use(
    '/graphql',
    express.json({ limit: options.maxRequestBytes }),
    expressMiddleware(server, { context: ({ req }) => authenticatedContext(options.access, req) }),
  );
  app.use(rejectUnreadableBody);
  return { app, server };
}

async function authenticatedContext(access: AccessControl, req: express.Request): Promise<RequestContext> {
  const context = requestContext(access, credentialSourceOf(req), requestIdOf(req));
  try {
    await context.identity();
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'UNAUTHORIZED';
    throw new GraphQLError((error as Error).message, { extensions: { code, http: { status: STATUS_OF_CODE[code] ?? 401 } } });
  }
  return context;
}

/** Apollo Server drives the gateway we already loaded (the REST facades share the same one). */
function sharedGateway(gateway: Gateway, supergraphSdl: string) {
  return {
    load: async () => ({ executor: (requestContext: never) => gateway.executor(requestContext) }),
    onSchemaLoadOrUpdate(callback: (schema: { apiSchema: typeof gateway.schema; coreSupergraphSdl: string }) => void) {
      callback({ apiSchema: gateway.schema, coreSupergraphSdl: supergraphSdl });
      return () => undefined;
    },
    stop: async () => undefined,
  };
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
  if (typeof code === 'string' && /^(GRAPHQL_|BAD_USER_INPUT|PERSISTED_QUERY|OPERATION_RESOLUTION)/.test(code)) {
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  }
  return { message: 'internal error', path: formatted.path, extensions: { code: 'INTERNAL_ERROR' } };
}
