import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { PreparedOperation } from './executor.js';

/** @apollo/gateway's executor, as `ApolloGateway.load()` hands it over. */
export type ApolloExecutor = (requestContext: never) => Promise<unknown>;

/**
 * @apollo/gateway's executor for an operation that did not come through Apollo Server (a REST
 * route's): the request context Apollo Server would have built for it, with this process's logger.
 */
export function stockExecution(executor: ApolloExecutor, schema: GraphQLSchema, logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>) {
  return async (prepared: PreparedOperation, variables: Record<string, unknown>, context: RequestContext): Promise<ExecutionResult> => {
    const requestContext = {
      request: { query: prepared.query, variables, operationName: prepared.requestOperationName },
      document: prepared.document,
      operation: prepared.operation,
      operationName: prepared.operationName,
      queryHash: prepared.queryHash,
      source: prepared.query,
      schema,
      context,
      metrics: {}, // as Apollo Server starts every request's
      logger,
      cache: undefined,
      overallCachePolicy: undefined,
    };
    return (await executor(requestContext as never)) as ExecutionResult;
  };
}
