import type { ServiceMetrics } from '../kernel/metrics.js';
import type { RequestPlugin } from './pipeline.js';

/**
 * Every answer of the process's doors: `http_request_duration_seconds{facade,route,method,status}`
 * (DECISIONS section 3's metric, a REST facade's route pattern, or `graphql` and `/graphql`, or a
 * subgraph port's `subgraph:<name>` and `/graphql`), and at the edge
 * `graphql_operation_duration_seconds{operation,outcome}` for every operation run (a REST route's
 * too). A subgraph port's operations are the gateway's plans of them, measured there by name.
 */
export function requestMetrics(metrics: ServiceMetrics): RequestPlugin {
  return {
    onResponse(exchange) {
      const seconds = Number(process.hrtime.bigint() - exchange.startedAt) / 1e9;
      const route = exchange.protocol === 'rest' ? exchange.route : '/graphql';
      metrics.request(exchange.door, route, exchange.method, exchange.status, seconds);
      if (exchange.kind === 'subgraph') return;
      if (exchange.operationName !== null || exchange.protocol === 'graphql') metrics.operation(exchange.operationName, exchange.codes.length > 0 ? 'error' : 'ok', seconds);
    },
  };
}
