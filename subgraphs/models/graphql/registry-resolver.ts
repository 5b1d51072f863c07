import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Directive, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { listSize } from '../../../kernel/graphql/demand-control.js';
import type { ModelRegistry, ModelVersion } from '../domain/registry/model-registry.js';
import type { ArtifactKind } from '../domain/registry/catalog.js';
import { ArtifactGql, ArtifactKindGql, ModelVersionGql, RefreshRegistryPayloadGql, ValidationReportGql } from './types.js';
import { modelVersionId } from './node-types.js';

const MEDIA_TYPES: Record<ArtifactKind, string> = {
  schema: 'application/schema+json; charset=utf-8',
  shacl: 'text/turtle; charset=utf-8',
  owl: 'text/turtle; charset=utf-8',
};

export function modelVersionGql(version: Pick<ModelVersion, 'model' | 'version' | 'label'>): ModelVersionGql {
  return { model: version.model, version: version.version, label: version.label ?? null };
}

/** How many versions a registry is assumed to serve, for demand control: a catalogue lists a handful. */
const MODEL_VERSIONS_ASSUMED = 10;

@Resolver(() => ModelVersionGql)
export class RegistryResolver {
  constructor(private readonly registry: ModelRegistry) {}

  @Authorized('models.list')
  @Directive(listSize({ assumedSize: MODEL_VERSIONS_ASSUMED }))
  @Query(() => [ModelVersionGql], { description: 'Every model version in the registry, by model, then version' })
  modelVersions(): ModelVersionGql[] {
    return this.registry.list().map(modelVersionGql);
  }

  @Authorized('models.artifact')
  @Query(() => ModelVersionGql, { nullable: true, description: 'One model version; null when the registry has no such version' })
  modelVersion(
    @Arg('model', { description: 'The model, e.g. `re-indicators-specification`' }) model: string,
    @Arg('version', { description: 'Its version, e.g. `0.0.4`' }) version: string,
  ): ModelVersionGql | null {
    const found = this.registry.find(model, version);
    return found ? modelVersionGql(found) : null;
  }

  @Authorized('admin.models_count')
  @Query(() => Int, { description: 'How many model versions the registry holds' })
  modelVersionCount(): number {
    return this.registry.list().length;
  }

  @FieldResolver(() => ID, { description: 'Unique across the graph (model and version, opaque): what `node(id:)` takes back' })
  id(@Root() parent: ModelVersionGql): string {
    return modelVersionId(parent.model, parent.version);
  }

  @FieldResolver(() => ArtifactGql, { description: 'One of its artifacts; ARTIFACT_NOT_FOUND when the version publishes no such artifact' })
  artifact(@Root() parent: ModelVersionGql, @Arg('kind', () => ArtifactKindGql, { description: 'Which artifact' }) kind: ArtifactKindGql): ArtifactGql {
    const { body, etag } = this.registry.artifact(parent.model, parent.version, kind);
    return { kind, etag, mediaType: MEDIA_TYPES[kind], content: body.toString('utf8') };
  }

  @Authorized('models.validate')
  @FieldResolver(() => ValidationReportGql, { description: "A payload checked by this version's validators (JSON Schema, SHACL, OWL); nothing is stored" })
  async validation(
    @Root() parent: ModelVersionGql,
    @Arg('payload', () => GraphQLJSONObject, { description: 'The payload to check, as the model defines it' }) payload: Record<string, unknown>,
  ): Promise<ValidationReportGql> {
    return (await this.registry.validate(parent.model, parent.version, payload)) as ValidationReportGql;
  }

  @Authorized('admin.registry_refresh')
  @Mutation(() => RefreshRegistryPayloadGql, { description: 'Reloads the catalog and every artifact, then serves the new index at once' })
  async refreshRegistry(): Promise<RefreshRegistryPayloadGql> {
    const report = await this.registry.refresh();
    return { refreshedAt: report.refreshed_at, modelsFound: report.models_found, errors: report.errors as RefreshRegistryPayloadGql['errors'] };
  }
}
