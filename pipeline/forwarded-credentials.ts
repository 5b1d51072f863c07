import type { RequestPlugin } from './pipeline.js';

/**
 * A remote subgraph verifies the caller itself, from the caller's own credentials: a bearer token,
 * or forward_auth's identity headers when they authenticated the caller at this edge (never headers
 * from a peer this edge does not trust: the subgraph trusts the gateway as a proxy). The gateway
 * never asserts an identity of its own. (RequestContext.forwardedCredentials)
 */
export function forwardedCredentials(): RequestPlugin {
  return {
    async onSubgraphFetch(fetch, send) {
      Object.assign(fetch.headers, await fetch.context.forwardedCredentials());
      return send();
    },
  };
}
