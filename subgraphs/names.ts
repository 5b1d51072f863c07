/**
 * The subgraphs by name, apart from their schemas: configuration and the composition's order read
 * them without loading every subgraph's code.
 */
export const SUBGRAPH_NAMES = ['models', 'indicators', 'impact'] as const;

export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];
