import type { GraphQLSchema } from 'graphql';
import { buildFederatedSchema, lazyResolvers } from '../../kernel/graphql/federated-schema.js';
import type { ErrorObserver } from '../../kernel/graphql/graphql-errors.js';
import type { IndicatorService } from './domain/indicator-service.js';
import { IndicatorResolver } from './graphql/indicator-resolver.js';
import { ModelVersionGql } from './graphql/types.js';

/** The `indicators` subgraph: compute, health, and the questionnaire on the models subgraph's ModelVersion. */
export function buildIndicatorsSchema(indicators: IndicatorService, observe: ErrorObserver): Promise<GraphQLSchema> {
  return buildFederatedSchema(
    {
      resolvers: [IndicatorResolver],
      // No root field returns ModelVersion here: the entity is reached only through the gateway.
      orphanedTypes: [ModelVersionGql],
      container: lazyResolvers([[IndicatorResolver, () => new IndicatorResolver(indicators)]]),
    },
    // The key is all this subgraph needs: the questionnaire is looked up by model and version.
    { ModelVersion: (reference): ModelVersionGql => ({ model: String(reference.model), version: String(reference.version) }) },
    observe,
  );
}
