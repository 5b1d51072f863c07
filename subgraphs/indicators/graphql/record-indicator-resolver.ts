import { Directive, FieldResolver, Resolver, Root } from 'type-graphql';
import { FREE_FORM_JSON_WEIGHT, cost } from '../../../kernel/graphql/demand-control.js';
import type { IndicatorService } from '../domain/indicator-service.js';
import { IndicatorResultGql, RecordGql } from './types.js';

/** A stored record's indicator scores, the `result` of computeIndicators for the record's payload. */
@Resolver(() => RecordGql)
export class RecordIndicatorResolver {
  constructor(private readonly indicators: IndicatorService) {}

  @FieldResolver(() => IndicatorResultGql, {
    nullable: true,
    description:
      "The scores of this record's payload, as `computeIndicators` gives them for its model version (without validating it again: " +
      'it was validated when stored); null for a record of any model but re-indicators-specification. INVALID_REQUEST_BODY when the ' +
      'payload is not an assessment, UNKNOWN_INDICATOR_SPECIFICATION, CALCULATION_ARTIFACT_NOT_FOUND',
  })
  @Directive('@requires(fields: "model version payload")')
  // The scores are the object plus the payload it requires, which the gateway fetches for it.
  @Directive(cost(1 + FREE_FORM_JSON_WEIGHT))
  indicatorResult(@Root() record: RecordGql): Promise<IndicatorResultGql | null> {
    return this.indicators.scoreRecord(record);
  }
}
