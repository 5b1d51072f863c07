import { FieldResolver, Resolver } from 'type-graphql';
import { healthRoot } from '../../../kernel/graphql/health-root.js';
import type { IndicatorService } from '../domain/indicator-service.js';
import { HealthGql, IndicatorHealthGql } from './types.js';

/** This subgraph's part of `health`. */
@Resolver(() => HealthGql)
export class IndicatorHealthResolver extends healthRoot(HealthGql) {
  constructor(private readonly service: IndicatorService) {
    super();
  }

  @FieldResolver(() => IndicatorHealthGql, { description: 'The indicator service' })
  indicators(): IndicatorHealthGql {
    return this.service.health();
  }
}
