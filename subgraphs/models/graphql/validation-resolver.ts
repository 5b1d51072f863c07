import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Query, Resolver } from 'type-graphql';
import type { ModelRegistry } from '../domain/registry/model-registry.js';
import { ValidationReportGql } from './types.js';

@Resolver()
export class ValidationResolver {
  constructor(private readonly registry: ModelRegistry) {}

  @Authorized('models.validate')
  @Query(() => ValidationReportGql, { description: 'Validates a payload with the JSON Schema, SHACL and OWL validators of a model version' })
  async validate(
    @Arg('model') model: string,
    @Arg('version') version: string,
    @Arg('payload', () => GraphQLJSONObject) payload: Record<string, unknown>,
  ): Promise<ValidationReportGql> {
    return (await this.registry.validate(model, version, payload)) as ValidationReportGql;
  }
}
