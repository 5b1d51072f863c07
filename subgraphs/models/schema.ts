import type { GraphQLSchema } from 'graphql';
import { buildFederatedSchema, lazyResolvers } from '../../kernel/graphql/federated-schema.js';
import type { ModelRegistry } from './domain/registry/model-registry.js';
import type { AdminService } from './domain/admin/admin-service.js';
import type { RecordService } from './domain/records/record-service.js';
import { RegistryResolver, modelVersionGql } from './graphql/registry-resolver.js';
import { AdminResolver } from './graphql/admin-resolver.js';
import { ModelVersionRecordsResolver, RecordConnectionResolver, RecordResolver } from './graphql/record-resolver.js';
import { recordReferences } from './graphql/record-references.js';

export interface ModelsSubgraphServices {
  registry: ModelRegistry;
  admin: AdminService;
  records: RecordService;
}

/** The `models` subgraph: registry, artifacts, validation, records and the core's admin probes. */
export function buildModelsSchema(services: ModelsSubgraphServices): Promise<GraphQLSchema> {
  return buildFederatedSchema(
    {
      resolvers: [RegistryResolver, AdminResolver, RecordResolver, RecordConnectionResolver, ModelVersionRecordsResolver],
      container: lazyResolvers([
        [RegistryResolver, () => new RegistryResolver(services.registry)],
        [AdminResolver, () => new AdminResolver(services.admin, services.records)],
        [RecordResolver, () => new RecordResolver(services.records, services.registry)],
        [RecordConnectionResolver, () => new RecordConnectionResolver()],
        [ModelVersionRecordsResolver, () => new ModelVersionRecordsResolver(services.records)],
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
