import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * The probe a load balancer checks on each listener: the readiness probes of the core and records
 * facades, and the liveness probe of the GraphQL ports (the gateway's, a subgraph's: the only one
 * they have). The indicator and impact facades have none of their own: a load balancer follows
 * the core's for them (they live and die with it).
 */
function probeOf(listener: string): string | undefined {
  if (listener === 'core') return '/admin/ready';
  if (listener === 'records') return '/ready';
  if (listener === 'gateway' || listener.startsWith('subgraph:')) return '/health';
  return undefined;
}

const STOPPING_BODY = JSON.stringify({ status: 'not_ready', reasons: ['the process is stopping'] });

/**
 * From the moment the process is told to stop (`stopping()`), through SHUTDOWN_DRAIN_DELAY_MS and
 * the drain: the listener's probe answers 503 before anything else runs (no authentication: it
 * says only that this process is going away), so a load balancer takes the process out while it
 * still serves; every other request is served as before, its answer saying `Connection: close`,
 * so that a client's next request opens a connection the load balancer sends elsewhere.
 */
export function stoppingAware(listener: string, handler: RequestListener, stopping: () => boolean): RequestListener {
  const probe = probeOf(listener);
  return (request, response) => {
    if (!stopping()) return handler(request, response);
    response.setHeader('connection', 'close');
    if (probe !== undefined && isProbe(request, probe)) return notReady(response);
    handler(request, response);
  };
}

function isProbe(request: IncomingMessage, probe: string): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && request.url?.split('?')[0] === probe;
}

function notReady(response: ServerResponse): void {
  response.writeHead(503, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(STOPPING_BODY);
}
