import { type ClassType, Directive, Query, Resolver } from 'type-graphql';

/**
 * The root field `health: Health!` that every subgraph declares alike: `@shareable`, resolved to an
 * empty object. Each subgraph declares its own `Health` type (`@shareable`) with only its part, as
 * field resolvers of a resolver class extending the one returned here; composition merges the parts,
 * and the gateway asks each subgraph for its own.
 */
export function healthRoot<T extends object>(Health: ClassType<T>): ClassType<{ health(): T }> {
  @Resolver(() => Health)
  class HealthRoot {
    @Query(() => Health, { description: "Every service's health: ask for the parts you need" })
    @Directive('@shareable')
    health(): T {
      return {} as T;
    }
  }
  return HealthRoot;
}
