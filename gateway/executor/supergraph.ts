import { type Schema, Supergraph } from '@apollo/federation-internals';

export interface FederatedSupergraph {
  supergraph: Supergraph;
  /** federation-internals' API schema: what the planners read operations and shape answers with. */
  apiSchema: Schema;
}

/** The one supergraph of this process (160 ms to build from the committed SDL), built at its first use. */
let built: { sdl: string; federated: FederatedSupergraph } | undefined;

/** The supergraph `sdl` describes, as federation-internals reads it: built once, shared by the gateway and its planners. */
export function federatedSupergraph(sdl: string): FederatedSupergraph {
  if (built?.sdl !== sdl) {
    const supergraph = Supergraph.build(sdl);
    built = { sdl, federated: { supergraph, apiSchema: supergraph.apiSchema() } };
  }
  return built.federated;
}
