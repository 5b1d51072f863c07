import type { GraphQLSchema } from 'graphql';
import type { SubgraphName } from './names.js';
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

const BUILDERS: { [N in SubgraphName]: (services: SubgraphServices[N]) => Promise<GraphQLSchema> } = {
  models: buildModelsSchema,
  indicators: buildIndicatorsSchema,
  impact: buildImpactSchema,
};

/**
 * The root fields of each subgraph whose answers depend on the operation and its variables alone,
 * given the artifacts the registry publishes: no caller, no stored record. The indicators' entity
 * fetches (a version's questionnaires, the scores of a payload sent in the representation) are;
 * the gateway reuses their answers (gateway/executor/answer-cache.ts) while the calculation artifact
 * they read is fresh.
 */
export const REUSABLE_ROOT_FIELDS: { readonly [N in SubgraphName]?: ReadonlySet<string> } = { indicators: new Set(['_entities']) };

export function buildSubgraphSchema<N extends SubgraphName>(name: N, services: SubgraphServices[N]): Promise<GraphQLSchema> {
  return BUILDERS[name](services);
}

/** The schema alone, for composition: resolvers are built but never called, so no services are needed. */
export function subgraphSchemaForComposition(name: SubgraphName): Promise<GraphQLSchema> {
  return BUILDERS[name](undefined as never);
}
