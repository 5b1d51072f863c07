import { type ApolloServerOptionsWithGateway, type ApolloServerPlugin, type GraphQLRequestListener, HeaderMap } from '@apollo/server';
import type { ExecutionResult } from 'graphql';
import { type RequestContext, isRequestContext } from '../kernel/graphql/request-context.js';
import type { Gateway } from './gateway.js';

/** What `answer` left for Apollo's gateway path: a result with errors to format, a failure to report, or the operation declined (the stock executor's). */
type Settled = { result: ExecutionResult } | { failure: unknown } | { declined: true };

/** Apollo Server's GatewayInterface, as its constructor types it. */
type ServerGateway = ApolloServerOptionsWithGateway<RequestContext>['gateway'];

/**
 * How Apollo Server gets `/graphql`'s answers from the gateway we already loaded (the REST facades
 * share the same one). Apollo runs in gateway mode, and `plugin` answers each resolved operation
 * before Apollo's gateway path starts: an answer without errors goes out as it is. An answer with
 * errors, a failure, or an operation the gateway's executor declines takes Apollo's gateway path
 * as before, so that errors are formatted, counted and given their HTTP status in one place
 * (Apollo's), and the `gateway.executor` there hands over what `answer` already settled.
 *
 * Why not Apollo's gateway path for every request: for each one it builds a legacy request context
 * whose `response.http.status` accessors V8 keeps in the old generation, and through them a copy of
 * Apollo's request context outlives the request until the next full collection. Under load that
 * promoted ~1 KB per request, and the full collections it caused set the workers' p99
 * (bench/PROFILE.md, "Requests that die young").
 */
export function apolloAnswers(gateway: Gateway, supergraphSdl: string) {
  // Keyed by the request's RequestContext: Apollo hands the same object to the plugin and, as
  // `context`, to the gateway's executor.
  const settled = new WeakMap<RequestContext, Settled>();
  const listener: GraphQLRequestListener<RequestContext> = {
    async responseForOperation({ document, operation, request, contextValue }) {
      if (!operation) return null;
      let result: ExecutionResult | null;
      try {
        result = await gateway.answer({ document, operationName: request.operationName, variables: request.variables ?? {}, context: contextValue });
      } catch (failure) {
        settled.set(contextValue, { failure });
        return null;
      }
      if (result === null) {
        settled.set(contextValue, { declined: true });
        return null;
      }
      if (result.errors?.length) {
        settled.set(contextValue, { result });
        return null;
      }
      return { body: { kind: 'single', singleResult: result }, http: { status: undefined, headers: new HeaderMap() } };
    },
  };
  const plugin: ApolloServerPlugin<RequestContext> = { requestDidStart: async () => listener };
  const apolloGateway: ServerGateway = {
    load: async () => ({
      executor: async (requestContext) => {
        const { context } = requestContext;
        const answered = isRequestContext(context) ? settled.get(context) : undefined;
        if (!answered || 'declined' in answered) return gateway.stock(requestContext);
        if (isRequestContext(context)) settled.delete(context);
        if ('failure' in answered) throw answered.failure;
        return answered.result;
      },
    }),
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: gateway.schema, coreSupergraphSdl: supergraphSdl });
      return () => undefined;
    },
    stop: async () => undefined,
  };
  return { plugin, gateway: apolloGateway };
}

