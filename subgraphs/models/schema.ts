import type { GraphQLSchema } from 'graphql';
import { buildFederatedSchema, lazyResolvers } from '../../kernel/graphql/federated-schema.js';
import type { ModelRegistry } from './domain/registry/model-registry.js';
import type { AdminService } from './domain/admin/admin-service.js';
import type { RecordService } from './domain/records/record-service.js';
import { RegistryResolver, modelVersionGql } from './graphql/registry-resolver.js';
import { AdminResolver } from './graphql/admin-resolver.js';
import { ModelVersionRecordsResolver, RecordConnectionResolver, RecordResolver } from './graphql/record-resolver.js';
import { recordReferences } from './graphql/record-references.js';
import { NodeResolver } from './graphql/node-resolver.js';
import { QUESTIONNAIRE_STUBS } from './graphql/node-types.js';

export interface ModelsSubgraphServices {
  registry: ModelRegistry;
  admin: AdminService;
  records: RecordService;
}

/** The `models` subgraph: registry, artifacts, validation, records, the core's admin probes and the graph's `node(id:)`. */
export function buildModelsSchema(services: ModelsSubgraphServices): Promise<GraphQLSchema> {
  return buildFederatedSchema(
    {
      resolvers: [RegistryResolver, AdminResolver, RecordResolver, RecordConnectionResolver, ModelVersionRecordsResolver, NodeResolver],
      // Returned only as a `Node`: the questionnaire's items, which the indicators subgraph completes.
      orphanedTypes: QUESTIONNAIRE_STUBS,
      container: lazyResolvers([
        [RegistryResolver, () => new RegistryResolver(services.registry)],
        [AdminResolver, () => new AdminResolver(services.admin, services.records)],
        [RecordResolver, () => new RecordResolver(services.records, services.registry)],
        [RecordConnectionResolver, () => new RecordConnectionResolver()],
        [ModelVersionRecordsResolver, () => new ModelVersionRecordsResolver(services.records)],
        [NodeResolver, () => new NodeResolver(services.registry, services.records)],
      ]),
    },
    {
      // Null for a version the registry does not hold, as the `modelVersion` query and a missing Record: an error each was most of a large batch's time.
      ModelVersion: (reference) => {
        const found = services.registry.find(String(reference.model), String(reference.version));
        return found ? modelVersionGql(found) : null;
      },
      Record: recordReferences(services),
    },
  );
}
