import type { GraphQLSchema } from 'graphql';
import { buildFederatedSchema, lazyResolvers } from '../../kernel/graphql/federated-schema.js';
import type { IndicatorService } from './domain/indicator-service.js';
import { IndicatorHealthResolver } from './graphql/health-resolver.js';
import { IndicatorResolver } from './graphql/indicator-resolver.js';
import { RecordIndicatorResolver } from './graphql/record-indicator-resolver.js';
import { ModelVersionGql, RecordGql } from './graphql/types.js';
import { questionnaireItem } from './graphql/questionnaire.js';
import { QUESTIONNAIRE_TYPES } from '../../kernel/graphql/global-id.js';

/**
 * The `indicators` subgraph: compute, its part of health, the questionnaire on the models
 * subgraph's ModelVersion (and its items by id, for `node(id:)`) and the scores on its Record.
 */
export function buildIndicatorsSchema(indicators: IndicatorService): Promise<GraphQLSchema> {
  return buildFederatedSchema(
    {
      resolvers: [IndicatorResolver, IndicatorHealthResolver, RecordIndicatorResolver],
      // No root field returns these entities here: they are reached only through the gateway.
      orphanedTypes: [ModelVersionGql, RecordGql],
      container: lazyResolvers([
        [IndicatorResolver, () => new IndicatorResolver(indicators)],
        [IndicatorHealthResolver, () => new IndicatorHealthResolver(indicators)],
        [RecordIndicatorResolver, () => new RecordIndicatorResolver(indicators)],
      ]),
    },
    {
      // The key is all the questionnaire needs: it is looked up by model and version.
      ModelVersion: (reference): ModelVersionGql => ({ model: String(reference.model), version: String(reference.version) }),
      // The representation carries the fields indicatorResult @requires.
      Record: (reference): RecordGql => ({
        id: String(reference.id),
        model: String(reference.model),
        version: String(reference.version),
        payload: reference.payload,
      }),
      // The questionnaire's items, by the id the models subgraph's `node(id:)` was given.
      ...Object.fromEntries(QUESTIONNAIRE_TYPES.map((type) => [type, (reference: Record<string, unknown>) => questionnaireItem(indicators, type, String(reference.nodeRef))])),
    },
  );
}
