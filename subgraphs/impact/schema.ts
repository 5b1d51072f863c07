import type { GraphQLSchema } from 'graphql';
import { buildFederatedSchema, lazyResolvers } from '../../kernel/graphql/federated-schema.js';
import type { ImpactService } from './domain/impact-service.js';
import { ImpactHealthResolver } from './graphql/health-resolver.js';
import { ImpactResolver } from './graphql/impact-resolver.js';

/** The `impact` subgraph: its part of health, background project capabilities and the (not yet available) calculation. */
export function buildImpactSchema(impact: ImpactService): Promise<GraphQLSchema> {
  return buildFederatedSchema(
    {
      resolvers: [ImpactResolver, ImpactHealthResolver],
      container: lazyResolvers([
        [ImpactResolver, () => new ImpactResolver(impact)],
        [ImpactHealthResolver, () => new ImpactHealthResolver(impact)],
      ]),
    },
    {},
  );
}
