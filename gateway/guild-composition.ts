import { composeServices } from '@theguild/federation-composition';
import { type Composition, type SubgraphSdl, compositionOf, serviceDefinitions } from './compose.js';

/**
 * The Guild's composition (`@theguild/federation-composition`), which Hive's schema registry runs
 * for Hive Router and Hive Gateway. `npm run schema:check` composes with it besides Apollo's, so
 * that the graph stays one that other routers' composers accept alike (docs/GRAPH.md,
 * "Composition"). A devDependency: only the check loads it, the gateway serves Apollo's supergraph.
 */
export const GUILD_COMPOSER = '@theguild/federation-composition';

export function composeWithGuild(subgraphs: SubgraphSdl[]): Composition {
  return compositionOf(composeServices(serviceDefinitions(subgraphs)));
}
