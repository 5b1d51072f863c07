import { Arg, Ctx, Directive, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { listSize } from '../../../kernel/graphql/demand-control.js';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import { MODEL_FAMILY } from '../domain/compute-request.js';
import type { IndicatorService } from '../domain/indicator-service.js';
import { ComputeIndicatorsInputGql, computeRequestOf } from './compute-input.js';
import { IndicatorComputationGql, IndicatorGql, IndicatorSpecificationGql, ModelVersionGql, QUESTIONNAIRE_SIZES } from './types.js';
import { questionnaireOf } from './questionnaire.js';

/**
 * The indicator service in the graph. Like its REST facade it does not authenticate callers itself
 * (DECISIONS section 2): the caller's bearer token goes to the core, whose verdict decides.
 */
@Resolver(() => ModelVersionGql)
export class IndicatorResolver {
  constructor(private readonly service: IndicatorService) {}

  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.indicators }))
  @FieldResolver(() => [IndicatorSpecificationGql], {
    deprecationReason:
      'Use `indicators`: the same questionnaires, each object with an `id` unique across the graph and its key under its own name. ' +
      'Here an `id` is unique only among its siblings (the same parameter id names different parameters of two indicators), so a client cache that keys objects by type and `id` shows one in place of the other',
    description:
      'The questionnaires of this version, one per indicator, in the order the model version lists them; empty for any model but ' +
      're-indicators-specification. CALCULATION_ARTIFACT_NOT_FOUND when the version has no published calculation artifact',
  })
  async indicatorSpecifications(@Root() parent: ModelVersionGql): Promise<readonly IndicatorSpecificationGql[]> {
    return parent.model === MODEL_FAMILY ? this.service.specifications(parent.version) : [];
  }

  @Directive(listSize({ assumedSize: QUESTIONNAIRE_SIZES.indicators }))
  @FieldResolver(() => [IndicatorGql], {
    description:
      'The questionnaires of this version, one per indicator, in the order the model version lists them, every object with an `id` unique across the graph; ' +
      'empty for any model but re-indicators-specification. CALCULATION_ARTIFACT_NOT_FOUND when the version has no published calculation artifact',
  })
  async indicators(@Root() parent: ModelVersionGql): Promise<readonly IndicatorGql[]> {
    return parent.model === MODEL_FAMILY ? questionnaireOf(await this.service.calculationArtifact(parent.version)).indicators : [];
  }

  @Mutation(() => IndicatorComputationGql, {
    description:
      "Validates an answered questionnaire of re-indicators-specification against its model version (the caller's bearer token is passed on " +
      'to the validating service), then scores it. Errors: INVALID_REQUEST_BODY (the input, every problem in `details.problems`), ' +
      'VALIDATION_FAILED (the assessment does not pass; `details` is the validation), CORE_UNAUTHORIZED (the validating service refused the token), ' +
      'MODEL_VERSION_NOT_FOUND, CALCULATION_ARTIFACT_NOT_FOUND, UNKNOWN_INDICATOR_SPECIFICATION, and CORE_VALIDATION_ERROR, ' +
      'CALCULATION_ARTIFACT_ERROR, CALCULATION_ARTIFACT_VERSION_MISMATCH when a service it depends on fails',
  })
  async computeIndicators(
    @Arg('input', () => ComputeIndicatorsInputGql, { description: 'The questionnaire and the model version to score it with' }) input: ComputeIndicatorsInputGql,
    @Ctx() context: RequestContext,
  ): Promise<IndicatorComputationGql> {
    // Forwarded to the core as the gateway forwards them to a remote subgraph (RequestContext.forwardedCredentials).
    return this.service.compute(computeRequestOf(input), await context.forwardedCredentials());
  }
}
