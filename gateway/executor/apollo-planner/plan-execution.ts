import type { QueryPlan } from '@apollo/query-planner';
import { GraphQLError, type GraphQLSchema, isObjectType } from 'graphql';
import type { SubgraphClient } from '../subgraph-client.js';
import { thawed } from '../../../kernel/json.js';
import { EntityRepresentations, type ErrorPaths, type Path, type PlanRun, deepMerge, entityErrorPaths, fetchVariables, relayErrors } from '../fetching.js';

export type PlanNode = NonNullable<QueryPlan['node']>;
export type FetchNode = Extract<PlanNode, { kind: 'Fetch' }>;
type RequiresSelection = NonNullable<FetchNode['requires']>[number];

interface Cursor {
  path: Path;
  data: unknown;
  fullResult: Record<string, unknown>;
}

/**
 * Whether `executePlan` runs this plan exactly as the gateway would. Conditions, `@defer`,
 * subscriptions, data rewrites (interface objects, `@fromContext`) and type conditions on abstract
 * types in `requires` stay with the gateway's own executor.
 */
export function isExecutablePlan(node: PlanNode, schema: GraphQLSchema): boolean {
  switch (node.kind) {
    case 'Sequence':
    case 'Parallel':
      return node.nodes.every((child) => isExecutablePlan(child, schema));
    case 'Flatten':
      return isExecutablePlan(node.node, schema);
    case 'Fetch':
      return !node.inputRewrites?.length && !node.outputRewrites?.length && !node.contextRewrites?.length && !node.hasDefers && (node.requires ?? []).every((s) => requiresOnObjectTypes(s, schema));
    default:
      return false;
  }
}

function requiresOnObjectTypes(selection: RequiresSelection, schema: GraphQLSchema): boolean {
  if (selection.kind === 'Field') return (selection.selections ?? []).every((s) => requiresOnObjectTypes(s, schema));
  const condition = selection.typeCondition ? schema.getType(selection.typeCondition) : undefined;
  return isObjectType(condition) && selection.selections.every((s) => requiresOnObjectTypes(s, schema));
}

/**
 * Runs a query plan's fetches as @apollo/gateway's `executeNode` and `executeFetch` do
 * (executeQueryPlan.js), for the plans `isExecutablePlan` accepts: sequences, parallel branches,
 * flattening into lists, root fetches and entity fetches (`_entities` with the representations the
 * plan's `requires` selects, merged back in place; each sent once, where the gateway sends one per
 * entity: fetching.ts, EntityRepresentations). Subgraph errors are relayed as the gateway's
 * `downstreamServiceError` relays them, with paths into the client's answer; a fetch that fails as a
 * whole is collected as an error of the answer, as there. The data gathered is still to be shaped
 * into the client's answer (answers.ts). Returns the data of every fetch, merged as the gateway merges it.
 */
export async function executePlan(run: PlanRun, node: PlanNode): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = Object.create(null);
  await executeNode(run, node, { path: [], data, fullResult: data });
  return data;
}

async function executeNode(run: PlanRun, node: PlanNode, cursor: Cursor | undefined): Promise<void> {
  if (!cursor) return;
  switch (node.kind) {
    case 'Sequence':
      for (const child of node.nodes) await executeNode(run, child, cursor);
      return;
    case 'Parallel':
      await Promise.all(node.nodes.map((child) => executeNode(run, child, cursor)));
      return;
    case 'Flatten':
      return executeNode(run, node.node, moveIntoCursor(cursor, node.path));
    case 'Fetch':
      try {
        await executeFetch(run, node, cursor);
      } catch (error) {
        run.errors.push(error as GraphQLError);
      }
      return;
    default:
      throw new Error(`plan node ${node.kind} is not executed here`);
  }
}

async function executeFetch(run: PlanRun, fetch: FetchNode, cursor: Cursor): Promise<void> {
  const source = run.subgraphs[fetch.serviceName];
  if (!source) throw new Error(`Couldn't find service with name "${fetch.serviceName}"`);
  const entities = (Array.isArray(cursor.data) ? cursor.data.filter((e) => e !== null && e !== undefined) : [cursor.data]) as Array<Record<string, unknown>>;
  if (entities.length < 1) return;
  const variables = fetchVariables(fetch, run.variables);
  if (!fetch.requires) {
    const received = await sendFetch(run, source, fetch, cursor, variables);
    for (const entity of entities) deepMerge(entity, received);
    return;
  }
  const representations = new EntityRepresentations();
  const representedEntities: Array<Record<string, unknown>> = [];
  /** The representation sent for each represented entity. */
  const indexes: number[] = [];
  for (const entity of entities) {
    const representation = selectRepresentation(entity, fetch.requires);
    if (representation && representation.__typename) {
      representedEntities.push(entity);
      indexes.push(representations.indexOf(representation));
    }
  }
  if (representedEntities.length < 1) return;
  if ('representations' in variables) throw new Error('Variables cannot contain key "representations"');
  const received = await sendFetch(run, source, fetch, cursor, { ...variables, representations: representations.sent }, indexes);
  if (!received) return;
  const receivedEntities = received._entities;
  if (!Array.isArray(receivedEntities)) throw new Error('Expected "data._entities" in response to be an array');
  if (receivedEntities.length !== representations.sent.length) throw new Error(`Expected "data._entities" to contain ${representations.sent.length} elements`);
  representedEntities.forEach((entity, i) => {
    const receivedEntity = receivedEntities[indexes[i]!] as Record<string, unknown> | null;
    // A copy: a received answer may be shared (answer-cache.ts).
    deepMerge(entity, receivedEntity && !receivedEntity.__typename ? { ...receivedEntity, __typename: entity.__typename } : receivedEntity);
  });
}

/**
 * One fetch sent as `executeFetch` sends it, with each representation once (`indexes`: the one sent
 * for each represented entity); subgraph errors land in `run.errors`.
 */
async function sendFetch(
  run: PlanRun,
  source: SubgraphClient,
  fetch: FetchNode,
  cursor: Cursor,
  variables: Record<string, unknown>,
  indexes: readonly number[] = [],
): Promise<Record<string, unknown> | null | undefined> {
  const response = await source.fetch({ query: fetch.operation, variables, operationName: fetch.operationName }, run.context);
  if (response.errors) relayErrors(run, response.errors, fetch.serviceName, errorPaths(fetch, cursor, indexes));
  return response.data as Record<string, unknown> | null | undefined;
}

/**
 * An `_entities.<i>` error path becomes the path of each entity representation i stands for, that of
 * the k-th entity the flatten path reaches for the k-th represented entity, as `makeLazyErrorPathGenerator`
 * counts (the entities not represented included).
 */
function errorPaths(fetch: FetchNode, cursor: Cursor, indexes: readonly number[]): ErrorPaths {
  let hydrated: Path[] | undefined;
  return (errorPath) => {
    if (fetch.requires && typeof errorPath?.[1] === 'number') {
      hydrated ??= hydratedPaths(cursor.path, cursor.fullResult);
      return entityErrorPaths(indexes, errorPath[1], errorPath.slice(2), (k) => hydrated![k]);
    }
    return [errorPath ? [...cursor.path, ...errorPath] : undefined];
  };
}

/** Every concrete path a flatten path (`@` for each element of a list) reaches in `data`. */
function hydratedPaths(path: Path, data: unknown): Path[] {
  const result: Path[] = [];
  const walk = (parent: Path, rest: Path, value: unknown) => {
    if (value === null || value === undefined) return;
    const [head] = rest;
    if (head === undefined) {
      result.push([...parent]);
    } else if (head === '@' || Array.isArray(value)) {
      if (!Array.isArray(value)) throw new Error('expected array when encountering `@`');
      value.forEach((element, index) => walk([...parent, index], head === '@' ? rest.slice(1) : rest, element));
    } else if (typeof head === 'string' && Object.hasOwn(value, head)) {
      walk([...parent, head], rest.slice(1), (value as Record<string, unknown>)[head]);
    }
  };
  walk([], path, data);
  return result;
}

function moveIntoCursor(cursor: Cursor, path: Path): Cursor | undefined {
  const data = flattenResultsAtPath(cursor.data, path);
  return data ? { path: [...cursor.path, ...path], data, fullResult: cursor.fullResult } : undefined;
}

/**
 * What a flatten path reaches, every object on the way made writable (`thawed`): a later fetch
 * merges into what it finds.
 */
function flattenResultsAtPath(value: unknown, path: Path): unknown {
  if (value === undefined || value === null) return value;
  if (path.length === 0) {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) thawed(value, i);
    return value;
  }
  const [current, ...rest] = path;
  if (current === '@') return (value as unknown[]).flatMap((_, index, list) => flattenResultsAtPath(thawed(list, index), rest));
  if (typeof current !== 'string') throw new Error(`Unexpected ${typeof current} found in path`);
  if (Array.isArray(value)) throw new Error(`Unexpected array in result for path element ${current}`);
  const object = value as Record<string, unknown>;
  return flattenResultsAtPath(Object.hasOwn(object, current) ? thawed(object, current) : undefined, rest);
}

/** The representation of an entity: what `requires` selects of it, or null when a field is missing. */
function selectRepresentation(source: Record<string, unknown> | null, selections: readonly RequiresSelection[]): Record<string, unknown> | null {
  if (source === null) return null;
  const result: Record<string, unknown> = Object.create(null);
  for (const selection of selections) {
    if (selection.kind === 'Field') {
      const name = selection.alias ?? selection.name;
      const value = Object.hasOwn(source, name) ? source[name] : undefined;
      if (value === undefined) return null;
      const nested = selection.selections;
      if (Array.isArray(value)) result[name] = value.map((element) => (nested ? selectRepresentation(element, nested) : element));
      else result[name] = nested ? selectRepresentation(value as Record<string, unknown> | null, nested) : value;
    } else if (selection.typeCondition && source.__typename === selection.typeCondition) {
      // Only object-type conditions reach here (isExecutablePlan): the gateway's isObjectOfType is then a name test.
      deepMerge(result, selectRepresentation(source, selection.selections));
    }
  }
  return result;
}
