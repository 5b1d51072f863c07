import type { IncomingMessage } from 'node:http';
import { BUDGET_HEADER, type BudgetLimits, type RequestBudget, adoptReportedBreach, requestBudget } from '../kernel/request-budget.js';
import type { AnswerMemory } from '../kernel/answer-memory.js';
import type { RequestPlugin, SubgraphFetch } from './pipeline.js';

/**
 * REQUEST_MAX_RESPONSE_BYTES, REQUEST_MAX_RECORDS_READ, REQUEST_MAX_DURATION_MS: every request gets
 * its budget when it arrives (kernel/request-budget.ts), whichever door. A subgraph port lowers it
 * to what the gateway says is left (BUDGET_HEADER), so a deadline holds across the hop. A remote
 * fetch carries that header, stops when the budget runs out, and a subgraph's own breach becomes
 * the request's (its code is what the client gets). `memory`: PROCESS_MAX_ANSWER_MB's, which every
 * request's reads and answer take from (kernel/answer-memory.ts), given back when it is answered.
 */
export function requestBudgetPlugin(limits: BudgetLimits, memory?: AnswerMemory): RequestPlugin {
  return {
    onRequest(exchange, request) {
      exchange.budget = requestBudget(limits, exchange.door.startsWith('subgraph:') ? headerOf(request) : undefined, memory);
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

function headerOf(request: IncomingMessage): string | undefined {
  const value = request.headers[BUDGET_HEADER];
  return typeof value === 'string' ? value : undefined;
}
