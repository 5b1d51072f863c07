import { type Schema, Supergraph } from '@apollo/federation-internals';

export interface FederatedSupergraph {
  supergraph: Supergraph;
  /** federation-internals' API schema: what the planners read operations and shape answers with. */
  apiSchema: Schema;
}

/**
 * The supergraphs of this process (160 ms each to build from the committed SDL), built at their
 * first use: one, or two while a gateway following the schema registry swaps (the old one's
 * requests in flight still plan against it, server/edge-switch.ts). The newest used are kept.
 */
const built: Array<{ sdl: string; federated: FederatedSupergraph }> = [];
const KEPT = 2;

/** The supergraph `sdl` describes, as federation-internals reads it: built once, shared by the gateway and its planners. */
export function federatedSupergraph(sdl: string): FederatedSupergraph {
  const at = built.findIndex((entry) => entry.sdl === sdl);
  const entry = at >= 0 ? built.splice(at, 1)[0]! : { sdl, federated: federatedFrom(sdl) };
  built.unshift(entry);
  built.length = Math.min(built.length, KEPT);
  return entry.federated;
}

function federatedFrom(sdl: string): FederatedSupergraph {
  const supergraph = Supergraph.build(sdl);
  return { supergraph, apiSchema: supergraph.apiSchema() };
}
