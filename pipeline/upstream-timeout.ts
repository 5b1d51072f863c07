import { GraphQLError } from 'graphql';
import { recordFailure } from '../kernel/graphql/request-context.js';
import type { RequestPlugin } from './pipeline.js';

/**
 * `SUBGRAPH_TIMEOUT_MS`: a remote subgraph fetch, its answer's body included, that takes longer
 * fails with SUBGRAPH_TIMEOUT, naming the subgraph but not its address (a failed fetch: the other
 * subgraphs' data is still answered). An operation with a deadline of its own (the admin refresh,
 * pipeline/request-budget.ts) gives its fetches until that deadline when it is later.
 */
export function upstreamTimeout(subgraphTimeoutMs: number): RequestPlugin {
  return {
    async onSubgraphFetch(fetch, send) {
      const timeoutMs = Math.max(subgraphTimeoutMs, fetch.context.budget.extendedMsLeft() ?? 0);
      // A timer cleared when the fetch ends, not AbortSignal.timeout, whose timer and signal stay
      // behind for the whole timeout after every fetch.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      fetch.signal = controller.signal;
      try {
        return await send();
      } catch (error) {
        if (!controller.signal.aborted) throw error;
        const timedOut = new GraphQLError(`the ${fetch.subgraph} subgraph did not answer within ${timeoutMs} ms`, { extensions: { code: 'SUBGRAPH_TIMEOUT' } });
        recordFailure(fetch.context.trace, timedOut);
        throw timedOut;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
