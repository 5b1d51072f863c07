import { type ExecutionResult, GraphQLError } from 'graphql';
import { type DomainError, ERROR_STATUSES, retryAfterHeader } from '../errors.js';
import type { RequestBudget } from '../request-budget.js';

/**
 * An operation's answer held to the request's budget (kernel/request-budget.ts), for every door that
 * answers GraphQL (the gateway's executors, a subgraph port): the work stops at the deadline, the
 * answer is measured before anyone writes it, and a request that went past a cap anywhere (a
 * resolver, the store, a remote subgraph) is answered with that breach alone, with its status,
 * never with a partial answer that would hide it among field errors. `run` may decline (null).
 */
export async function answerWithinBudget<T extends ExecutionResult | null>(budget: RequestBudget, run: () => Promise<T>): Promise<T | ExecutionResult> {
  let result: T;
  try {
    result = await budget.within(run());
  } catch (error) {
    if (budget.breach) return breachAnswer(budget.breach);
    throw error;
  }
  if (result !== null && budget.breach === null) {
    try {
      budget.chargeAnswer(result);
    } catch {
      // kept as the breach, answered below
    }
  }
  return budget.breach ? breachAnswer(budget.breach) : result;
}

/** The breach as the only error of the answer. */
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
