import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Mutation, Query, Resolver } from 'type-graphql';
import type { ImpactService } from '../domain/impact-service.js';
import { ImpactCapabilitiesGql, ImpactHealthGql } from './types.js';

/**
 * The impact service in the graph. Like its REST facade it does not authenticate callers itself
 * (DECISIONS section 2); the gateway's edge does for GraphQL clients.
 */
@Resolver()
export class ImpactResolver {
  constructor(private readonly impact: ImpactService) {}

  @Query(() => ImpactHealthGql)
  impactHealth(): ImpactHealthGql {
    const health = this.impact.health();
    return { ...health, coreBaseUrl: health.core_base_url, backgroundProjectDir: health.background_project_dir };
  }

  @Query(() => ImpactCapabilitiesGql, { description: 'Reads the background project; BACKGROUND_PROJECT_UNAVAILABLE when it cannot be opened' })
  async impactCapabilities(): Promise<ImpactCapabilitiesGql> {
    const { calculation_status, background, engine } = await this.impact.capabilities();
    return {
      calculationStatus: calculation_status,
      background: {
        projectName: background.project_name,
        databases: background.databases.map((d) => ({ name: d.name, backend: d.backend, format: d.format, activityCount: d.activity_count })),
        methodCount: background.method_count,
        methodExamples: background.method_examples,
      },
      engine: { dataLibraryVersion: engine.data_library_version, calcLibraryVersion: engine.calc_library_version },
    };
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Validates a compute request; no calculation is available, so it always fails: CALCULATION_NOT_IMPLEMENTED for a valid request, UNPROCESSABLE otherwise',
  })
  computeImpact(@Arg('request', () => GraphQLJSON, { nullable: true }) request: unknown): boolean {
    return this.impact.compute(request);
  }
}
