import type { IncomingMessage } from 'node:http';
import { Kind, type OperationDefinitionNode } from 'graphql';
import { BUDGET_HEADER, type BudgetLimits, type RequestBudget, adoptReportedBreach, headerMs, requestBudget } from '../kernel/request-budget.js';
import type { AnswerMemory } from '../kernel/answer-memory.js';
import { breachAnswer } from '../kernel/graphql/budgeted-answer.js';
import type { RequestPlugin, SubgraphFetch } from './pipeline.js';

/** Root fields whose work has a time bound of its own, in milliseconds: their requests are held to it instead of REQUEST_MAX_DURATION_MS. */
export type OwnDeadlines = Readonly<Record<string, number>>;

/**
 * REQUEST_MAX_RESPONSE_BYTES, REQUEST_MAX_RECORDS_READ, REQUEST_MAX_DURATION_MS: every request gets
 * its budget when it arrives (kernel/request-budget.ts), whichever door. A subgraph port lowers it
 * to what the gateway says is left (BUDGET_HEADER), so a deadline holds across the hop. A remote
 * fetch carries that header, stops when the budget runs out, and a subgraph's own breach becomes
 * the request's (its code is what the client gets). An operation whose every root field has a
 * deadline of its own (`ownDeadlines`: the admin refresh) is held to that instead. An operation's
 * result is measured before anyone writes it, and one whose request went past a cap anywhere is
 * answered with that breach alone (`breachAnswer`). `memory`:
 * PROCESS_MAX_ANSWER_MB's, which every request's reads and answer take from
 * (kernel/answer-memory.ts), given back when it is answered.
 */
export function requestBudgetPlugin(limits: BudgetLimits, ownDeadlines: OwnDeadlines = {}, memory?: AnswerMemory): RequestPlugin {
  return {
    onRequest(exchange, request) {
      exchange.budget = requestBudget(limits, exchange.kind === 'subgraph' ? headerOf(request) : undefined, memory);
    },
    onOperation({ exchange, operation }) {
      const own = ownDeadlineOf(operation, ownDeadlines);
      if (own !== null) exchange.budget.extendDeadline(own);
    },
    onResult({ budget }, result) {
      if (budget.breach === null) {
        try {
          budget.chargeAnswer(result);
        } catch {
          // kept as the breach, answered below
        }
      }
      return budget.breach ? breachAnswer(budget.breach) : result;
    },
    async onSubgraphFetch(fetch, send) {
      const { budget } = fetch.context;
      const header = budget.header();
      if (header !== null) fetch.headers[BUDGET_HEADER] = header;
      const stop = stopping(fetch, budget);
      try {
        const response = await send();
        adoptReportedBreach(response.errors, budget);
        return response;
      } catch (error) {
        throw budget.breach ?? error;
      } finally {
        stop();
      }
    },
    onResponse(exchange) {
      exchange.budget.end();
    },
  };
}

/** The fetch's signal also aborts when the budget runs out; returns what removes the listeners. */
function stopping(fetch: SubgraphFetch, budget: RequestBudget): () => void {
  const budgetSignal = budget.signal;
  if (!budgetSignal) return () => undefined;
  const outer = fetch.signal;
  const controller = new AbortController();
  const abort = () => controller.abort();
  budgetSignal.addEventListener('abort', abort, { once: true });
  outer?.addEventListener('abort', abort, { once: true });
  fetch.signal = controller.signal;
  return () => {
    budgetSignal.removeEventListener('abort', abort);
    outer?.removeEventListener('abort', abort);
  };
}

/**
 * A subgraph port's request from the gateway (its secret checked): the deadline the gateway sent is
 * the request's, an operation's own bound included, which the port's own REQUEST_MAX_DURATION_MS
 * would otherwise cut. A direct caller's header only ever lowers the budget (an own deadline too).
 */
export function followGatewayDeadline(budget: RequestBudget, request: IncomingMessage): void {
  const ms = headerMs(headerOf(request));
  if (ms !== null) budget.extendDeadline(ms);
}

/** The longest own deadline of the operation's root fields, when each has one (`__typename` aside); else null. */
function ownDeadlineOf(operation: OperationDefinitionNode, ownDeadlines: OwnDeadlines): number | null {
  let longest: number | null = null;
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return null;
    if (selection.name.value === '__typename') continue;
    const own = Object.hasOwn(ownDeadlines, selection.name.value) ? ownDeadlines[selection.name.value]! : null;
    if (own === null) return null;
    longest = Math.max(longest ?? 0, own);
  }
  return longest;
}

function headerOf(request: IncomingMessage): string | undefined {
  const value = request.headers[BUDGET_HEADER];
  return typeof value === 'string' ? value : undefined;
}
