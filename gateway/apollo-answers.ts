import { type ApolloServerOptionsWithGateway, type ApolloServerPlugin, type GraphQLRequestListener, HeaderMap } from '@apollo/server';
import type { ExecutionResult } from 'graphql';
import { type RequestContext, isRequestContext } from '../kernel/graphql/request-context.js';
import type { Gateway } from './gateway.js';
import { queryHashOf } from './executor/executor.js';
import { executeStep } from '../pipeline/graphql-run.js';
import type { Exchange, RequestPipeline } from '../pipeline/pipeline.js';

/** What `execute` left for Apollo's gateway path: an answer with errors to format, or a failure to report. */
type Settled = { result: ExecutionResult } | { failure: unknown };

/** Apollo Server's GatewayInterface, as its constructor types it. */
type ServerGateway = ApolloServerOptionsWithGateway<RequestContext>['gateway'];

/**
 * How Apollo Server gets `/graphql`'s answers from the gateway we already loaded (the REST facades
 * share the same one). Apollo runs in gateway mode, and `plugin` has the gateway execute each
 * resolved operation before Apollo's gateway path starts: an answer without errors goes out as it
 * is. An answer with errors, or a failure, takes Apollo's gateway path as before, so that errors
 * are formatted, counted and given their HTTP status in one place (Apollo's), and the
 * `gateway.executor` there hands over what `execute` settled, kept by the request's context. The
 * execution is the runner's execute step and result concerns (pipeline/graphql-run.ts), as on the
 * other doors; its result step is apollo-door.ts's.
 *
 * Why not Apollo's gateway path for every request: for each one it builds a legacy request context
 * whose `response.http.status` accessors V8 keeps in the old generation, and through them a copy of
 * Apollo's request context outlives the request until the next full collection. Under load that
 * promoted ~1 KB per request, and the full collections it caused set the workers' p99
 * (bench/PROFILE.md, "What still got promoted"; docs/DECISIONS.md).
 */
export function apolloAnswers(gateway: Gateway, supergraphSdl: string, pipeline: RequestPipeline) {
  // Keyed by the request's RequestContext: Apollo hands the same object to the plugin and, as
  // `context`, to the gateway's executor; an entry goes with the request.
  const settled = new WeakMap<RequestContext, Settled>();
  const listener: GraphQLRequestListener<RequestContext> = {
    async responseForOperation({ document, operation, source, queryHash, request, contextValue }) {
      if (!operation) return null;
      // Apollo Server has hashed the text by now (`queryHash` is typed optional for earlier hooks).
      const resolved = { document, operation, query: source, queryHash: queryHash ?? queryHashOf(source), requestOperationName: request.operationName };
      let result: ExecutionResult;
      try {
        // The answer is only written (apollo-door.ts `stringifyAnswer`): subtrees may stay as the subgraphs' text.
        const run = () => gateway.execute({ operation: resolved, variables: request.variables ?? {}, context: contextValue, shareInFlight: true, rawSubtrees: true });
        result = pipeline.result(contextValue.trace as Exchange, await executeStep(contextValue.budget, run));
      } catch (failure) {
        settled.set(contextValue, { failure });
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
      executor: async ({ context }) => {
        // Apollo asks its gateway only for an operation `responseForOperation` left to it, settled.
        const answered = isRequestContext(context) ? settled.get(context) : undefined;
        if (!answered) throw new Error('no answer settled for this request');
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
