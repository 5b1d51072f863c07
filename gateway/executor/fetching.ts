import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import { isJsonObject, thawed } from '../../kernel/json.js';
import { RawJson } from '../../kernel/raw-json.js';
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

/** The paths in the client's answer a subgraph error is relayed at, one error each: one path for most, none when it has none. */
export type ErrorPaths = (path: ReadonlyArray<string | number> | undefined) => ReadonlyArray<Path | undefined>;

/** A fetch's subgraph errors relayed into the answer's errors (`downstreamServiceError`), each at every path `pathsOf` gives it. */
export function relayErrors(run: PlanRun, errors: ReadonlyArray<SubgraphError> | undefined, serviceName: string, pathsOf: ErrorPaths): void {
  for (const error of errors ?? []) for (const path of pathsOf(error.path)) run.errors.push(downstreamServiceError(error, serviceName, path));
}

type SubgraphError = { message?: string; path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> };

/**
 * As `downstreamServiceError`: the subgraph's message and extensions with `serviceName`, the code
 * DOWNSTREAM_SERVICE_ERROR when the subgraph gave none, at `path` in the client's answer.
 */
function downstreamServiceError(error: SubgraphError, serviceName: string, path: Path | undefined): GraphQLError {
  const message = error.message || `Error while fetching subquery from service "${serviceName}"`;
  const code = error.extensions?.code;
  // The gateway looks codes up in a plain object (`errorCodeDef`): a code that an object inherits
  // (`constructor`) makes it throw there, which fails the whole fetch. So it does here.
  if (typeof code === 'string' && code in Object.prototype) throw new TypeError(`unusable error code from subgraph "${serviceName}"`);
  const extensions = error.extensions?.code ? { ...error.extensions, serviceName } : { ...error.extensions, serviceName, code: 'DOWNSTREAM_SERVICE_ERROR' };
  return new GraphQLError(message, { originalError: error as Error, path, extensions });
}

/**
 * An `_entities` fetch's representations, each sent once: the entities that share one (the records
 * of a page, each pointing at the same model version) are each merged from the one answer the
 * subgraph gives it, as Apollo Router and Hive Router send them. The stock gateway sends one per
 * entity, so that a page of ten records asked a subgraph for the same questionnaire ten times.
 */
export class EntityRepresentations {
  /** What the subgraph is sent, in the order first met. */
  readonly sent: Array<Record<string, unknown>> = [];
  private readonly byText = new Map<string, number>();

  /** The index in `sent` of this representation, added when it is new. */
  indexOf(representation: Record<string, unknown>): number {
    // Its JSON text: representations of one fetch are selected in one order, so equal ones have equal texts.
    const text = JSON.stringify(representation);
    let index = this.byText.get(text);
    if (index === undefined) {
      index = this.sent.push(representation) - 1;
      this.byText.set(text, index);
    }
    return index;
  }
}

/**
 * Where an error of `_entities.<index>.<rest>` goes, `indexes` being the representation sent for
 * each entity: at each entity that representation stands for (`pathOf` gives an entity's path by its
 * place in `indexes`), as the stock gateway relays the error the subgraph gives each copy it was
 * sent. An index that stands for no entity: `rest` alone, as the gateway places it.
 */
export function entityErrorPaths(indexes: readonly number[], index: number, rest: ReadonlyArray<string | number>, pathOf: (entity: number) => Path | undefined): Path[] {
  const paths: Path[] = [];
  indexes.forEach((sent, entity) => {
    if (sent === index) paths.push([...(pathOf(entity) ?? []), ...rest]);
  });
  return paths.length > 0 ? paths : [[...rest]];
}

/**
 * As the gateway's deepMerge: objects merged key by key, lists of equal length element by element.
 * `target` is writable; what it holds may be shared (answer-cache.ts), and is copied (`thawed`)
 * before anything is merged into it. A subtree kept as text (passthrough.ts) is put in place as it
 * is where nothing is there yet; merged into, or merged into something, it is parsed first.
 */
export function deepMerge(target: Record<string, unknown> | undefined, source: Record<string, unknown> | RawJson | null | undefined): void {
  if (source === undefined || source === null || target === undefined) return;
  if (source instanceof RawJson) source = source.parsed() as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    let value = source[key];
    if (value === undefined) continue;
    // An inherited property of that name (`constructor` on a plain object) is shadowed first.
    if (!Object.hasOwn(target, key) && key in target) Object.defineProperty(target, key, { configurable: true, enumerable: true, value: undefined, writable: true });
    let existing = target[key];
    if (value instanceof RawJson) {
      if (existing === undefined || existing === null) {
        target[key] = value;
        continue;
      }
      value = value.parsed();
    }
    if (existing instanceof RawJson && typeof value === 'object' && value !== null) existing = thawed(target, key);
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
