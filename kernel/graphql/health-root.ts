import { type ClassType, Directive, Field, ID, ObjectType, Query, Resolver } from 'type-graphql';

/** What every subgraph's `Health` holds before its own part: the key of the one `Health` there is. */
export interface HealthKey {
  singleton: string;
}

const THE_HEALTH: HealthKey = { singleton: 'health' };

/**
 * A subgraph's `Health` type, with only the key: the subgraph adds its part as field resolvers (of a
 * resolver class extending `healthRoot`). An entity, not a `@shareable` value type: composition
 * merges an entity's fields from every subgraph, while a shareable type must be declared alike in
 * each (Grafbase's composition refuses it otherwise). No subgraph resolves it by its key
 * (`resolvable: false`), so the gateway asks each subgraph's `health` for its part, as before, and
 * the key is `@inaccessible`: clients see the same `Health` (docs/GRAPH.md, "Composition").
 */
export function healthType(): ClassType<HealthKey> {
  @ObjectType('Health', { description: "Every service's probes in one place; each part comes from the service it describes" })
  @Directive('@key(fields: "singleton", resolvable: false)')
  class Health implements HealthKey {
    @Field(() => ID, { description: 'The one `Health` there is, as every subgraph keys it: not for clients' })
    @Directive('@inaccessible')
    singleton!: string;
  }
  return Health;
}

/**
 * The root field `health: Health!` that every subgraph declares alike: `@shareable`, resolved to the
 * one `Health`, whose parts are field resolvers of the resolver class extending the one returned here.
 */
export function healthRoot<T extends HealthKey>(Health: ClassType<T>): ClassType<{ health(): T }> {
  @Resolver(() => Health)
  class HealthRoot {
    @Query(() => Health, { description: "Every service's health: ask for the parts you need" })
    @Directive('@shareable')
    health(): T {
      return { ...THE_HEALTH } as T;
    }
  }
  return HealthRoot;
}
