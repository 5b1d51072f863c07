import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import { MODEL_FAMILY } from '../domain/compute-request.js';
import type { IndicatorService } from '../domain/indicator-service.js';
import { IndicatorComputationGql, IndicatorHealthGql, IndicatorSpecificationGql, ModelVersionGql } from './types.js';

/**
 * The indicator service in the graph. Like its REST facade it does not authenticate callers itself
 * (DECISIONS section 2): the caller's bearer token goes to the core, whose verdict decides.
 */
@Resolver(() => ModelVersionGql)
export class IndicatorResolver {
  constructor(private readonly indicators: IndicatorService) {}

  @FieldResolver(() => [IndicatorSpecificationGql], {
    description:
      'The questionnaire of the calculation artifact of this version, in artifact order; [] for any other model than re-indicators-specification. ' +
      'CALCULATION_ARTIFACT_NOT_FOUND when no artifact is published for the version',
  })
  async indicatorSpecifications(@Root() parent: ModelVersionGql): Promise<readonly IndicatorSpecificationGql[]> {
    return parent.model === MODEL_FAMILY ? this.indicators.specifications(parent.version) : [];
  }

  // `request` is nullable so that null reaches the domain and is INVALID_REQUEST_BODY like any other non-object.
  @Mutation(() => IndicatorComputationGql, {
    description:
      'doc 02 POST /compute: `request` is its body ({model_version?, payload}); the payload is validated by the core, then scored. ' +
      'INVALID_REQUEST_BODY lists every problem of its shape',
  })
  async computeIndicators(@Arg('request', () => GraphQLJSON, { nullable: true }) request: unknown, @Ctx() context: RequestContext): Promise<IndicatorComputationGql> {
    // Forwarded to the core as the gateway forwards them to a remote subgraph (RequestContext.forwardedCredentials).
    return this.indicators.compute(request, await context.forwardedCredentials());
  }

  @Query(() => IndicatorHealthGql)
  indicatorHealth(): IndicatorHealthGql {
    return this.indicators.health();
  }
}
