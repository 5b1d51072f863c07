import { Arg, Mutation, Query, Resolver } from 'type-graphql';
import type { ImpactService } from '../domain/impact-service.js';
import { ComputeImpactInputGql, ImpactCapabilitiesGql, ImpactComputationGql } from './types.js';

/**
 * The impact service in the graph. Like its REST facade it does not authenticate callers itself
 * (DECISIONS section 2); the gateway's edge does for GraphQL clients.
 */
@Resolver()
export class ImpactResolver {
  constructor(private readonly impact: ImpactService) {}

  @Query(() => ImpactCapabilitiesGql, {
    description:
      'What the impact service can compute with, read from its background project on every call (so it also tells whether the ' +
      'project is ready). BACKGROUND_PROJECT_UNAVAILABLE when the project cannot be opened',
  })
  impactCapabilities(): Promise<ImpactCapabilitiesGql> {
    return this.impact.capabilities();
  }

  @Mutation(() => ImpactComputationGql, {
    nullable: true,
    description: 'Computes an Integrated LCA. Not available yet: a request always fails with CALCULATION_NOT_IMPLEMENTED, and has no effect ' + '(nothing is stored, no other service is called)',
  })
  computeImpact(@Arg('input', () => ComputeImpactInputGql, { description: 'What to compute it from' }) input: ComputeImpactInputGql): ImpactComputationGql | null {
    return this.impact.compute(input);
  }
}
