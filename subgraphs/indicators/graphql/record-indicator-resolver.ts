import { Directive, FieldResolver, Resolver, Root } from 'type-graphql';
import type { IndicatorService } from '../domain/indicator-service.js';
import { IndicatorResultGql, RecordGql } from './types.js';

/** A stored record's indicator scores: the result part of POST /compute, for the record's payload. */
@Resolver(() => RecordGql)
export class RecordIndicatorResolver {
  constructor(private readonly indicators: IndicatorService) {}

  @FieldResolver(() => IndicatorResultGql, {
    nullable: true,
    description:
      'The scores of this record\'s payload with the calculation artifact of its version, as POST /compute gives them (without its delegated validation); ' +
      'null for a record of any other model than re-indicators-specification. INVALID_REQUEST_BODY when the payload is not an assessment, ' +
      'UNKNOWN_INDICATOR_SPECIFICATION, CALCULATION_ARTIFACT_NOT_FOUND',
  })
  @Directive('@requires(fields: "model version payload")')
  indicatorResult(@Root() record: RecordGql): Promise<IndicatorResultGql | null> {
    return this.indicators.scoreRecord(record);
  }
}
