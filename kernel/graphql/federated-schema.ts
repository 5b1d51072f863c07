import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { type GraphQLArgument, type GraphQLEnumType, type GraphQLSchema, getNamedType, isAbstractType, isEnumType, isInputObjectType, isInterfaceType, isObjectType, parse } from 'graphql';
import { type AuthChecker, type BuildSchemaOptions, buildSchema, createResolversMap } from 'type-graphql';
import type { RequestContext } from './request-context.js';
import type { Operation } from '../identity/authorization.js';
import { normalizingResolver, toGraphQLError } from './graphql-errors.js';
import { DEMAND_CONTROL_IMPORTS } from './demand-control.js';

const FEDERATION_LINK = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ${JSON.stringify(['@key', '@shareable', '@external', '@requires', '@provides', '@inaccessible', ...DEMAND_CONTROL_IMPORTS])})`;

/** Entity reference resolvers, keyed by type name (federation's `__resolveReference`). */
export type ReferenceResolvers = Record<string, (reference: Record<string, unknown>, context: RequestContext) => unknown>;

/**
 * type-graphql's container, creating each resolver on first use. Lazy, so that composition can
 * build a schema's SDL without any domain service behind it.
 */
/** A resolver class, as type-graphql's container is asked for one. */
type ResolverClass = abstract new (...args: never[]) => unknown;

export function lazyResolvers(factories: Array<[ResolverClass, () => unknown]>): { get(type: ResolverClass): unknown } {
  const instances = new Map<ResolverClass, unknown>();
  const byType = new Map(factories);
  return {
    get(type) {
      if (!instances.has(type)) instances.set(type, byType.get(type)?.());
      return instances.get(type);
    },
  };
}

/**
 * `@Authorized()` needs an authenticated caller; `@Authorized('models.validate')` also checks that
 * operation's requirements (scopes, roles, AUTH_POLICY_FILE). type-graphql runs this before the
 * global middlewares, so it normalises its own errors.
 */
const authChecker: AuthChecker<RequestContext> = async ({ context }, [operation]) => {
  try {
    if (operation) await context.authorize(operation as Operation);
    else await context.identity();
  } catch (error) {
    throw toGraphQLError(error, context.trace);
  }
  return true;
};

/**
 * A Federation 2 subgraph schema from type-graphql classes: type-graphql builds the schema and the
 * resolvers, @apollo/subgraph adds `_service`/`_entities`. Entity lookups authenticate like root
 * fields, so a subgraph reached directly cannot be read through `_entities` anonymously.
 */
export async function buildFederatedSchema(options: Omit<BuildSchemaOptions, 'authChecker' | 'validate' | 'globalMiddlewares'>, references: ReferenceResolvers): Promise<GraphQLSchema> {
  // skipCheck: type-graphql's check is an introspection query over the schema (about a quarter of
  // the three subgraphs' build, in every process that serves them); the SDL printed from it is
  // validated below, by @apollo/subgraph's buildSubgraph, and composed by `npm run schema:check`.
  const schema = await buildSchema({ ...options, authChecker, validate: false, skipCheck: true });
  const resolvers = createResolversMap(schema) as Record<string, Record<string, unknown>>;
  // Every field resolver normalises its errors (graphql-errors.ts: not a type-graphql global
  // middleware, which made every field asynchronous).
  for (const fields of Object.values(resolvers)) {
    if (!fields || typeof fields !== 'object' || fields.constructor !== Object) continue;
    for (const [name, resolve] of Object.entries(fields)) {
      if (typeof resolve === 'function' && !name.startsWith('__')) fields[name] = normalizingResolver(resolve as never);
    }
  }
  // type-graphql's own type resolvers are async, which graphql-jit (execute-subgraph.ts) cannot
  // await: an abstract type's objects carry their `__typename`, as graphql-js's default reads it.
  for (const type of Object.values(schema.getTypeMap())) {
    if (isAbstractType(type) && !type.name.startsWith('__')) resolvers[type.name] = { ...resolvers[type.name], __resolveType: typenameOf };
  }
  for (const [typeName, resolve] of Object.entries(references)) {
    resolvers[typeName] = {
      ...resolvers[typeName],
      __resolveReference: async (reference: Record<string, unknown>, context: RequestContext) => {
        try {
          await context.identity();
          return await resolve(reference, context);
        } catch (error) {
          throw toGraphQLError(error, context.trace);
        }
      },
    };
  }
  describeRootTypes(schema);
  argumentsInDeclaredOrder(schema);
  const typeDefs = parse(`${FEDERATION_LINK}\n${printSchemaWithDirectives(schema)}`);
  const subgraph = buildSubgraphSchema({ typeDefs, resolvers: resolvers as never });
  enumDefaultsAsValues(subgraph);
  return subgraph;
}

/**
 * An enum default as the value the resolvers give that enum. The schema is built from SDL, where a
 * default is the value's name (`direction: OrderDirection! = ASC`); the resolvers map then gives the
 * enum's values their TypeScript values (`'asc'`) and leaves the defaults as they were: an omitted
 * `direction` reached the resolver as `'ASC'` (refused), and introspection could not print it.
 */
function enumDefaultsAsValues(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const slots = isInputObjectType(type) ? Object.values(type.getFields()) : isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()).flatMap((field) => field.args) : [];
    for (const slot of slots) {
      const enumType = getNamedType(slot.type);
      if (slot.defaultValue !== undefined && isEnumType(enumType)) (slot as { defaultValue: unknown }).defaultValue = valueOf(enumType, slot.defaultValue);
    }
  }
}

function valueOf(type: GraphQLEnumType, named: unknown): unknown {
  if (Array.isArray(named)) return named.map((item) => valueOf(type, item));
  return typeof named === 'string' ? (type.getValue(named)?.value ?? named) : named;
}

function typenameOf(value: { __typename?: unknown }): string | undefined {
  return typeof value.__typename === 'string' ? value.__typename : undefined;
}

/** type-graphql gives the root types no description; every subgraph gives them the same one. */
function describeRootTypes(schema: GraphQLSchema): void {
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  if (query) query.description = 'What you can read: model versions and their questionnaires, records, service health';
  if (mutation) mutation.description = 'What you can change: records, read grants, computations, the registry';
}

/**
 * type-graphql lists a field's arguments last parameter first (parameter decorators run in reverse
 * order), which put `version` before `model`; the graph shows them in the order the resolver
 * declares them.
 */
function argumentsInDeclaredOrder(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) (field.args as GraphQLArgument[]).reverse();
  }
}
