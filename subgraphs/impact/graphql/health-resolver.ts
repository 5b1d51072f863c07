import { FieldResolver, Resolver } from 'type-graphql';
import { healthRoot } from '../../../kernel/graphql/health-root.js';
import type { ImpactService } from '../domain/impact-service.js';
import { HealthGql, ImpactHealthGql } from './types.js';

/** This subgraph's part of `health`. */
@Resolver(() => HealthGql)
export class ImpactHealthResolver extends healthRoot(HealthGql) {
  constructor(private readonly service: ImpactService) {
    super();
  }

  @FieldResolver(() => ImpactHealthGql, { description: 'The impact service (it does not open the background project)' })
  impact(): ImpactHealthGql {
    return this.service.health();
  }
}
