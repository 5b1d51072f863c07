import { GraphQLError } from 'graphql';
import { DomainError, isErrorCode, toDomainError } from '../errors.js';

/**
 * The one place where a thrown value becomes a GraphQL error: the contract's code and details go
 * into `extensions`; anything that is not a DomainError becomes INTERNAL_ERROR without its text.
 */
export function toGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError && isErrorCode(error.extensions?.code)) return error;
  const domain = toDomainError(error);
  return new GraphQLError(domain.message, { extensions: { code: domain.code, details: domain.details } });
}

/** Reads a GraphQL error (local or relayed by the gateway) back as a DomainError. */
export function fromGraphQLError(error: { message: string; extensions?: Record<string, unknown> }): DomainError {
  const code = error.extensions?.code;
  if (!isErrorCode(code)) return new DomainError('INTERNAL_ERROR', 'internal error');
  return new DomainError(code, error.message, error.extensions?.details ?? null);
}

export type ErrorObserver = (error: unknown) => void;

type FieldResolver = (root: unknown, args: unknown, context: unknown, info: unknown) => unknown;

/**
 * Wraps a field resolver so that what it throws (or rejects with) goes through `toGraphQLError`;
 * unexpected errors (neither a DomainError nor an already coded GraphQL error, such as the auth
 * checker's) are reported to `observe`.
 *
 * This replaced a type-graphql global middleware doing the same: type-graphql runs global
 * middlewares on every field, plain properties included, and its middleware chain is async, so
 * each field of a response cost two or three promises. A 107 KB questionnaire (11 indicator
 * specifications) took about 44 ms through the gateway (bench/PROFILE.md). This wrapper adds a
 * try/catch and stays synchronous for synchronous values.
 */
export function normalizingResolver(resolve: FieldResolver, observe: ErrorObserver): FieldResolver {
  const fail = (error: unknown): never => {
    if (!(error instanceof DomainError) && !(error instanceof GraphQLError && isErrorCode(error.extensions?.code))) observe(error);
    throw toGraphQLError(error);
  };
  return (root, args, context, info) => {
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
