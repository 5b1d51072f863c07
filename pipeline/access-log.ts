import type { Logger } from 'pino';
import type { Exchange, RequestPlugin } from './pipeline.js';

/** Probes a load balancer sends every few seconds: logged, they would drown the requests. */
const PROBE_ROUTES = new Set(['/admin/health', '/admin/ready', '/health', '/ready']);
const CLIENT_HEADERS = ['graphql-client-name', 'apollographql-client-name'] as const;
const CLIENT_NAME = /^[\w.@/:-]{1,64}$/;

/**
 * `ACCESS_LOG` (on by default): one line per request answered at the edge (a REST route,
 * `/graphql`): method, route pattern or operation name, status, duration, request id and the
 * client's name (`graphql-client-name`, Apollo's `apollographql-client-name`; `unknown` otherwise).
 * A subgraph's port is not an edge (its requests are the gateway's, logged there); health and
 * readiness probes are left out. No path parameter, query, header value or body.
 */
export function accessLog(logger: Pick<Logger, 'info'>): RequestPlugin {
  return {
    onResponse(exchange) {
      if (exchange.kind === 'subgraph' || (exchange.route !== null && PROBE_ROUTES.has(exchange.route))) return;
      logger.info(
        {
          requestId: exchange.requestId,
          door: exchange.door,
          method: exchange.method,
          route: exchange.protocol === 'rest' ? exchange.route : '/graphql',
          operation: exchange.operationName,
          status: exchange.status,
          durationMs: Math.round(Number(process.hrtime.bigint() - exchange.startedAt) / 1e4) / 100,
          client: clientName(exchange),
        },
        'request',
      );
    },
  };
}

function clientName({ headers }: Exchange): string {
  const named = CLIENT_HEADERS.map((header) => headers[header]).find((value) => typeof value === 'string' && CLIENT_NAME.test(value));
  return (named as string | undefined) ?? 'unknown';
}
