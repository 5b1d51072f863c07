import type { RequestPlugin } from './pipeline.js';

/** The header by which a subgraph knows a request comes from our gateway (server/subgraph-server.ts). */
export const GATEWAY_SECRET_HEADER = 'x-gateway-secret';

/**
 * Distributed mode: every subgraph fetch carries GATEWAY_SUBGRAPH_SECRET, which lets the subgraph
 * serve the fields that need no identity (the contract's public probes) to the gateway only.
 */
export function gatewaySecret(secret: string): RequestPlugin {
  return {
    onSubgraphFetch(fetch, send) {
      fetch.headers[GATEWAY_SECRET_HEADER] = secret;
      return send();
    },
  };
}
