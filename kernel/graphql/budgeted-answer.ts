import { type ExecutionResult, GraphQLError } from 'graphql';
import { type DomainError, ERROR_STATUSES, retryAfterHeader } from '../errors.js';

/**
 * A request that went past a cap anywhere (a resolver, the store, a remote subgraph) is answered with
 * that breach alone, with its status, never with a partial answer that would hide it among field
 * errors (pipeline/graphql-run.ts's execute step, pipeline/request-budget.ts's result hook).
 */
export function breachAnswer(error: DomainError): ExecutionResult {
  return { errors: [refusalError(error)] };
}

/**
 * A DomainError as a GraphQL error that ends a request: the code and details in `extensions`, and
 * the code's HTTP status and headers (Retry-After of STORE_BUSY and SERVER_BUSY) in
 * `extensions.http`, Apollo Server's way (headers as a Map), which it answers with.
 */
export function refusalError(error: DomainError): GraphQLError {
  const http = { status: ERROR_STATUSES[error.code], headers: new Map(Object.entries(retryAfterHeader(error))) };
  return new GraphQLError(error.message, { extensions: { code: error.code, details: error.details, http } });
}
