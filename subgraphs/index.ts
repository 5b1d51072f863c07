import type { GraphQLSchema } from 'graphql';
import { type ModelsSubgraphServices, buildModelsSchema } from './models/schema.js';
import { buildIndicatorsSchema } from './indicators/schema.js';
import { buildImpactSchema } from './impact/schema.js';
import type { ImpactService } from './impact/domain/impact-service.js';
import type { IndicatorService } from './indicators/domain/indicator-service.js';

export interface SubgraphServices {
  models: ModelsSubgraphServices;
  indicators: IndicatorService;
  impact: ImpactService;
}

export type SubgraphName = keyof SubgraphServices;
export const SUBGRAPH_NAMES: readonly SubgraphName[] = ['models', 'indicators', 'impact'];

const BUILDERS: { [N in SubgraphName]: (services: SubgraphServices[N]) => Promise<GraphQLSchema> } = {
  models: buildModelsSchema,
  indicators: buildIndicatorsSchema,
  impact: buildImpactSchema,
};

export function buildSubgraphSchema<N extends SubgraphName>(name: N, services: SubgraphServices[N]): Promise<GraphQLSchema> {
  return BUILDERS[name](services);
}

/** The schema alone, for composition: resolvers are built but never called, so no services are needed. */
export function subgraphSchemaForComposition(name: SubgraphName): Promise<GraphQLSchema> {
  return BUILDERS[name](undefined as never);
}
