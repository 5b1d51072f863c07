import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import { isJsonObject, thawed } from '../../kernel/json.js';
import type { SubgraphClient } from './subgraph-client.js';

/**
 * What running a query plan shares, whichever planner made it (hive/ for Hive's plans, apollo-planner/
 * for Apollo's): the request's fetches, their variables, the subgraph errors relayed as
 * @apollo/gateway relays them, and the merge of each fetch's data into the answer gathered so far.
 * The data gathered is then shaped into the client's answer (answers.ts, result-shaping.ts).
 */
/** A path into the answer, as GraphQL errors carry it. */
export type Path = Array<string | number>;

export interface PlanRun {
  subgraphs: Readonly<Record<string, SubgraphClient>>;
  context: RequestContext;
  /** The client's variables as sent (the gateway hands subgraphs these, not coerced values). */
  variables: Record<string, unknown>;
  /** The API schema, for type conditions in `requires`. */
  schema: GraphQLSchema;
  errors: GraphQLError[];
}

/** The variables a fetch uses, those the client gave (an absent one stays absent). */
export function fetchVariables(fetch: { variableUsages?: string[] }, provided: Record<string, unknown>): Record<string, unknown> {
  const variables: Record<string, unknown> = Object.create(null);
  for (const name of fetch.variableUsages ?? []) {
    if (Object.hasOwn(provided, name) && provided[name] !== undefined) variables[name] = provided[name];
  }
  return variables;
}

/**
 * As `downstreamServiceError`: the subgraph's message and extensions with `serviceName`, the code
 * DOWNSTREAM_SERVICE_ERROR when the subgraph gave none, the path moved into the client's answer.
 */
export function downstreamServiceError(
  error: { message?: string; path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> },
  serviceName: string,
  pathOf: (path: ReadonlyArray<string | number> | undefined) => Path | undefined,
): GraphQLError {
  const message = error.message || `Error while fetching subquery from service "${serviceName}"`;
  const code = error.extensions?.code;
  // The gateway looks codes up in a plain object (`errorCodeDef`): a code that an object inherits
  // (`constructor`) makes it throw there, which fails the whole fetch. So it does here.
  if (typeof code === 'string' && code in Object.prototype) throw new TypeError(`unusable error code from subgraph "${serviceName}"`);
  const extensions = error.extensions?.code ? { ...error.extensions, serviceName } : { ...error.extensions, serviceName, code: 'DOWNSTREAM_SERVICE_ERROR' };
  return new GraphQLError(message, { originalError: error as Error, path: pathOf(error.path), extensions });
}

/**
 * As the gateway's deepMerge: objects merged key by key, lists of equal length element by element.
 * `target` is writable; what it holds may be shared (answer-cache.ts), and is copied (`thawed`)
 * before anything is merged into it.
 */
export function deepMerge(target: Record<string, unknown> | undefined, source: Record<string, unknown> | null | undefined): void {
  if (source === undefined || source === null || target === undefined) return;
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (value === undefined) continue;
    // An inherited property of that name (`constructor` on a plain object) is shadowed first.
    if (!Object.hasOwn(target, key) && key in target) Object.defineProperty(target, key, { configurable: true, enumerable: true, value: undefined, writable: true });
    const existing = target[key];
    if (existing && isJsonObject(value)) {
      deepMerge(thawed(target, key) as Record<string, unknown>, value);
    } else if (Array.isArray(value) && Array.isArray(existing) && value.length === existing.length) {
      const list = thawed(target, key) as unknown[];
      for (let i = 0; i < value.length; i++) {
        if (isJsonObject(list[i]) && isJsonObject(value[i])) deepMerge(thawed(list, i) as Record<string, unknown>, value[i]);
        else list[i] = value[i];
      }
    } else {
      target[key] = value;
    }
  }
}
