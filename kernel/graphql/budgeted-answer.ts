import { type ExecutionResult, GraphQLError } from 'graphql';
import { type DomainError, ERROR_STATUSES } from '../errors.js';
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

/** The breach as the only error of the answer, its HTTP status in `extensions.http` (Apollo Server's way). */
export function breachAnswer(error: DomainError): ExecutionResult {
  return { errors: [new GraphQLError(error.message, { extensions: { code: error.code, details: error.details, http: { status: ERROR_STATUSES[error.code] } } })] };
}
