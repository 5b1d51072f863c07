import { GraphQLError } from 'graphql';
import type { RequestPlugin } from './pipeline.js';

/**
 * `SUBGRAPH_TIMEOUT_MS`: a remote subgraph fetch, its answer's body included, that takes longer
 * fails with SUBGRAPH_TIMEOUT, naming the subgraph but not its address (a failed fetch: the other
 * subgraphs' data is still answered).
 */
export function upstreamTimeout(timeoutMs: number): RequestPlugin {
  return {
    async onSubgraphFetch(fetch, send) {
      const signal = AbortSignal.timeout(timeoutMs);
      fetch.signal = signal;
      try {
        return await send();
      } catch (error) {
        if (!signal.aborted) throw error;
        throw new GraphQLError(`the ${fetch.subgraph} subgraph did not answer within ${timeoutMs} ms`, { extensions: { code: 'SUBGRAPH_TIMEOUT' } });
      }
    },
  };
}
