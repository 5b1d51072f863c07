import type { ApolloGateway } from '@apollo/gateway';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import { boundedApolloCache } from '../bounded-apollo-cache.js';
import type { ResolvedOperation } from './executor.js';

/** @apollo/gateway's executor, as `ApolloGateway.load()` hands it over (Apollo Server's GatewayInterface executor). */
export type ApolloExecutor = Awaited<ReturnType<ApolloGateway['load']>>['executor'];

/** @apollo/gateway answering what the project's executor declines (gateway.ts), and how it is stopped. */
export interface StockExecution {
  execute(resolved: ResolvedOperation, variables: Record<string, unknown>, context: RequestContext): Promise<ExecutionResult>;
  stop(): Promise<void>;
}

/** The request context @apollo/gateway's executor takes (Apollo Server's `GatewayGraphQLRequestContext`). */
type ApolloRequestContext = Parameters<ApolloExecutor>[0];

/**
 * What Apollo Server (4 and later) hands a gateway as the schema hash it no longer computes
 * (its `makeGatewayGraphQLRequestContext`); @apollo/gateway never reads it. The type is a brand.
 */
const NO_SCHEMA_HASH = 'schemaHash no longer exists since Apollo Server 4' as ApolloRequestContext['schemaHash'];

/**
 * @apollo/gateway's executor for any operation of this process: the request context Apollo Server
 * would make for it, with this process's logger and, in place of Apollo Server's cache (which the
 * gateway's executor does not read), a bounded one of our own.
 */
export function stockExecution(executor: ApolloExecutor, schema: GraphQLSchema, logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>) {
  const cache = boundedApolloCache((value: string) => value.length);
  return async (resolved: ResolvedOperation, variables: Record<string, unknown>, context: RequestContext): Promise<ExecutionResult> => {
    const requestContext: ApolloRequestContext = {
      request: { query: resolved.query, variables, operationName: resolved.requestOperationName },
      document: resolved.document,
      operation: resolved.operation,
      operationName: resolved.operation.name?.value ?? null,
      queryHash: resolved.queryHash,
      source: resolved.query,
      schema,
      schemaHash: NO_SCHEMA_HASH,
      context,
      metrics: {}, // as Apollo Server starts every request's
      logger,
      cache,
      overallCachePolicy: undefined,
    };
    return executor(requestContext);
  };
}
