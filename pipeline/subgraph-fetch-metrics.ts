import type { FetchOutcome, ServiceMetrics } from '../kernel/metrics.js';
import type { RequestPlugin, SubgraphResponse } from './pipeline.js';

/** A failed fetch's code (remote-client.ts, upstream-timeout.ts) as its outcome; anything else (the request's budget cut it) is `failed`. */
const FAILURES = new Map<unknown, FetchOutcome>([
  ['SUBGRAPH_TIMEOUT', 'timeout'],
  ['SUBGRAPH_UNAVAILABLE', 'unavailable'],
  ['SUBGRAPH_ERROR', 'invalid_answer'],
]);

/**
 * Every fetch to a remote subgraph (the gateway role): `subgraph_fetches_total` and
 * `subgraph_fetch_duration_seconds` by subgraph (its configured name) and outcome (`FetchOutcome`),
 * so that an operator sees which subgraph is slow or failing. First among the fetch concerns: the
 * timeout's SUBGRAPH_TIMEOUT is what it sees of a fetch that took too long.
 */
export function subgraphFetchMetrics(metrics: ServiceMetrics): RequestPlugin {
  return {
    async onSubgraphFetch(fetch, send) {
      const started = process.hrtime.bigint();
      const measured = (outcome: FetchOutcome) => metrics.fetched(fetch.subgraph, outcome, Number(process.hrtime.bigint() - started) / 1e9);
      let response: SubgraphResponse;
      try {
        response = await send();
      } catch (error) {
        measured(FAILURES.get((error as { extensions?: { code?: unknown } }).extensions?.code) ?? 'failed');
        throw error;
      }
      measured(response.errors?.length ? 'errors' : 'ok');
      return response;
    },
  };
}
