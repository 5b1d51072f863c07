import { GraphQLError } from 'graphql';
import { DomainError, ERROR_STATUSES, isErrorCode, toDomainError } from '../errors.js';
import { type RequestContext, type RequestTrace, recordFailure } from './request-context.js';

/**
 * The one place where a thrown value becomes a GraphQL error: the contract's code and details go
 * into `extensions`; anything that is not a DomainError becomes INTERNAL_ERROR without its text.
 * With the request's trace, an error that is the server's fault is recorded there as thrown, for
 * the one log line the door that received the request writes (pipeline/server-error-log.ts).
 */
export function toGraphQLError(error: unknown, trace?: RequestTrace): GraphQLError {
  if (error instanceof GraphQLError && isErrorCode(error.extensions?.code)) return error;
  const domain = toDomainError(error);
  if (ERROR_STATUSES[domain.code] >= 500) recordFailure(trace, error);
  return new GraphQLError(domain.message, { extensions: { code: domain.code, details: domain.details } });
}

/** Reads a GraphQL error (local or relayed by the gateway) back as a DomainError. */
export function fromGraphQLError(error: { message: string; extensions?: Record<string, unknown> }): DomainError {
  const code = error.extensions?.code;
  if (!isErrorCode(code)) return new DomainError('INTERNAL_ERROR', 'internal error');
  return new DomainError(code, error.message, error.extensions?.details ?? null);
}

/**
 * Codes graphql-js and Apollo Server give a client's own mistakes in a GraphQL request (a document
 * that does not parse or validate, bad variables, a persisted query not found, no operation to run):
 * shown to clients as they are, like the contract's codes.
 */
export function isGraphQLRequestCode(code: unknown): code is string {
  return typeof code === 'string' && /^(GRAPHQL_|BAD_USER_INPUT|PERSISTED_QUERY|OPERATION_RESOLUTION|QUERY_PLANNING_FAILED)/.test(code);
}

type FieldResolver = (root: unknown, args: unknown, context: unknown, info: unknown) => unknown;

/**
 * Wraps a field resolver so that what it throws (or rejects with) goes through `toGraphQLError`,
 * recorded in the request's trace when it is the server's fault.
 *
 * This replaced a type-graphql global middleware doing the same: type-graphql runs global
 * middlewares on every field, plain properties included, and its middleware chain is async, so
 * each field of a response cost two or three promises. A 107 KB questionnaire (11 indicator
 * specifications) took about 44 ms through the gateway (bench/PROFILE.md). This wrapper adds a
 * try/catch and stays synchronous for synchronous values.
 */
export function normalizingResolver(resolve: FieldResolver): FieldResolver {
  return (root, args, context, info) => {
    const fail = (error: unknown): never => {
      throw toGraphQLError(error, (context as Partial<RequestContext> | undefined)?.trace);
    };
    try {
      const value = resolve(root, args, context, info);
      return isThenable(value) ? Promise.resolve(value).catch(fail) : value;
    } catch (error) {
      return fail(error);
    }
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
