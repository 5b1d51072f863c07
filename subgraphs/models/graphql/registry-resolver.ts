import { Arg, Authorized, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { ModelRegistry, ModelVersion } from '../domain/registry/model-registry.js';
import type { ArtifactKind } from '../domain/registry/catalog.js';
import { ArtifactGql, ArtifactKindGql, ModelVersionGql, RefreshReportGql } from './types.js';

const MEDIA_TYPES: Record<ArtifactKind, string> = {
  schema: 'application/schema+json; charset=utf-8',
  shacl: 'text/turtle; charset=utf-8',
  owl: 'text/turtle; charset=utf-8',
};

export function modelVersionGql(version: Pick<ModelVersion, 'model' | 'version' | 'label'>): ModelVersionGql {
  return { model: version.model, version: version.version, label: version.label };
}

@Resolver(() => ModelVersionGql)
export class RegistryResolver {
  constructor(private readonly registry: ModelRegistry) {}

  @Authorized('models.list')
  @Query(() => [ModelVersionGql], { description: 'Every model version in the registry, sorted by model id, then version' })
  models(): ModelVersionGql[] {
    return this.registry.list().map(modelVersionGql);
  }

  @Authorized('models.artifact')
  @Query(() => ModelVersionGql, { description: 'One model version; MODEL_NOT_FOUND when it is not in the registry' })
  modelVersion(@Arg('model') model: string, @Arg('version') version: string): ModelVersionGql {
    return modelVersionGql(this.registry.get(model, version));
  }

  @Authorized('admin.models_count')
  @Query(() => Int, { description: 'Number of model versions currently indexed' })
  modelsCount(): number {
    return this.registry.list().length;
  }

  @FieldResolver(() => ArtifactGql, { description: 'ARTIFACT_NOT_FOUND when the version has no such artifact' })
  artifact(@Root() parent: ModelVersionGql, @Arg('kind', () => ArtifactKindGql) kind: ArtifactKindGql): ArtifactGql {
    const { body, etag } = this.registry.artifact(parent.model, parent.version, kind);
    return { kind, etag, mediaType: MEDIA_TYPES[kind], content: body.toString('utf8') };
  }

  @Authorized('admin.registry_refresh')
  @Mutation(() => RefreshReportGql, { description: 'Reloads the catalog and every artifact, then swaps the index atomically' })
  async refreshRegistry(): Promise<RefreshReportGql> {
    const report = await this.registry.refresh();
    return { refreshedAt: report.refreshed_at, modelsFound: report.models_found, errors: report.errors as RefreshReportGql['errors'] };
  }
}
