import type { BatchFetchNode, EntityBatchAlias, FetchNode, FetchNodePathSegment, FetchRewrite, FlattenNodePathSegment, PlanNode, RequiresSelection } from '@graphql-hive/router-query-planner';
import { type GraphQLError, type GraphQLSchema, isAbstractType, isObjectType } from 'graphql';
import type { SubgraphClient } from '../subgraph-client.js';
import { EntityRepresentations, type ErrorPaths, type Path, type PlanRun, deepMerge, entityErrorPaths, fetchVariables, relayErrors } from '../fetching.js';
import { thawed } from '../../../kernel/json.js';
import { RawJson } from '../../../kernel/raw-json.js';
import { type RawSubtrees, rawSubtrees } from '../passthrough.js';
import type { ResultShape } from '../result-shaping.js';

export type HivePlanNode = PlanNode;

type Entity = Record<string, unknown>;

/** An entity of the answer so far, with its path in the client's answer (for errors). */
interface Located {
  entity: Entity;
  path: Path;
}

/**
 * Runs a plan of Hive's query planner in its own shapes, with @apollo/gateway's executor semantics
 * wherever the two formats say the same thing (plan-execution.ts: representations, merging, error
 * relaying, `_entities` checks), so that an answer differs from the stock gateway's only where
 * the plan does:
 * - Flatten paths are typed: `{Field}`, `@` and `{TypeCondition: [...]}`, where an entity passes
 *   only if its `__typename` is, or implements, one of the types;
 * - `requires` fields read the entity's `name` (an internal alias such as `_internal_qp_alias_0`,
 *   fetched with the arguments `@requires` states) and write the `alias` the subgraph expects
 *   (`comments`), so that the client's own `comments(limit: 1)` stays beside it, unmixed;
 * - `inputRewrites` / `outputRewrites`: value setters (an interface object's `__typename`) and key
 *   renamers, on the representations sent and the entities received;
 * - BatchFetch: several entity fetches to one subgraph as one request, one `_entities` alias each,
 *   aliases sharing a representations variable sharing its list;
 * - every entity fetch sends each representation once (fetching.ts, EntityRepresentations), its
 *   answer merged into every entity it stands for, its errors relayed at each;
 * - Condition: the branch of the `@skip`/`@include` variable's coerced value.
 * Internal aliases stay in the gathered data; shaping to the client's operation leaves them out.
 */
export interface HivePlanRun extends PlanRun {
  /** The client's variables coerced, defaults applied: what Condition nodes read. */
  coerced: Record<string, unknown>;
  /** The entity fetches whose answers may keep subtrees as text (`rawSubtreesOf`); none when absent. */
  raw?: ReadonlyMap<FetchNode, RawSubtrees>;
}

/**
 * The entity fetches (Flatten) of a plan whose answers may keep subtrees as the subgraph's text
 * (passthrough.ts), and which: the fields of the fetched entities that the client's operation
 * selects plainly there (`ResultShape.rawFieldsAt`), but none that the plan reads or merges into
 * after (a name in any flatten path or `requires` of the plan), and none from a fetch with output
 * rewrites. What reads into a kept subtree anyway parses it first (kernel/json.ts `thawed`,
 * fetching.ts `deepMerge`, `select` here).
 */
export function rawSubtreesOf(node: PlanNode | undefined, shape: ResultShape): ReadonlyMap<FetchNode, RawSubtrees> {
  const read = new Set<string>();
  const flattens: Array<{ path: readonly FlattenNodePathSegment[]; fetch: FetchNode }> = [];
  const requiresNames = (selections: readonly RequiresSelection[]) => {
    for (const selection of selections) {
      if (selection.kind === 'Field') {
        read.add(selection.name);
        if (selection.alias) read.add(selection.alias);
      }
      if (selection.kind !== 'FragmentSpread') requiresNames(selection.selections ?? []);
    }
  };
  const flattenNames = (path: readonly FlattenNodePathSegment[]) => {
    for (const segment of path) if (segment !== '@' && 'Field' in segment) read.add(segment.Field);
  };
  const walk = (node: PlanNode | null | undefined): void => {
    if (!node) return;
    switch (node.kind) {
      case 'Sequence':
      case 'Parallel':
        for (const child of node.nodes) walk(child);
        return;
      case 'Condition':
        walk(node.ifClause);
        walk(node.elseClause);
        return;
      case 'Flatten':
        flattenNames(node.path);
        if (node.node.kind === 'Fetch') {
          requiresNames(node.node.requires ?? []);
          flattens.push({ path: node.path, fetch: node.node });
        }
        return;
      case 'BatchFetch':
        for (const alias of node.entityBatch.aliases) {
          alias.paths.forEach(flattenNames);
          requiresNames(alias.requires);
        }
        return;
      default:
        return;
    }
  };
  walk(node);
  const raw = new Map<FetchNode, RawSubtrees>();
  for (const { path, fetch } of flattens) {
    if (fetch.outputRewrites?.length) continue;
    const names = path.flatMap((segment) => (segment !== '@' && 'Field' in segment ? [segment.Field] : []));
    const fields = new Map([...(shape.rawFieldsAt(names) ?? [])].filter(([name]) => !read.has(name)));
    if (fields.size > 0) raw.set(fetch, rawSubtrees('_entities', fields));
  }
  return raw;
}

/** Whether `executeHivePlan` runs every node (`@defer` and subscriptions stay with the gateway). */
export function isExecutableHivePlan(node: PlanNode): boolean {
  switch (node.kind) {
    case 'Sequence':
    case 'Parallel':
      return node.nodes.every(isExecutableHivePlan);
    case 'Condition':
      return [node.ifClause, node.elseClause].every((branch) => !branch || isExecutableHivePlan(branch));
    case 'Flatten':
      return node.node.kind === 'Fetch' && !!node.node.requires && noFragmentSpreads(node.node.requires);
    case 'Fetch':
      return !node.requires;
    case 'BatchFetch':
      return node.entityBatch.aliases.every((alias) => noFragmentSpreads(alias.requires));
    default:
      return false;
  }
}

function noFragmentSpreads(selections: readonly RequiresSelection[]): boolean {
  return selections.every((s) => s.kind !== 'FragmentSpread' && (s.kind === 'Field' ? noFragmentSpreads(s.selections ?? []) : noFragmentSpreads(s.selections)));
}

export async function executeHivePlan(run: HivePlanRun, node: PlanNode): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = Object.create(null);
  await executeNode(run, node, data);
  return data;
}

async function executeNode(run: HivePlanRun, node: PlanNode, data: Record<string, unknown>): Promise<void> {
  switch (node.kind) {
    case 'Sequence':
      for (const child of node.nodes) await executeNode(run, child, data);
      return;
    case 'Parallel':
      await Promise.all(node.nodes.map((child) => executeNode(run, child, data)));
      return;
    case 'Condition': {
      const branch = run.coerced[node.condition] === true ? node.ifClause : node.elseClause;
      if (branch) await executeNode(run, branch, data);
      return;
    }
    case 'Flatten':
      return collected(run, () => fetchEntities(run, node.node as FetchNode, entitiesAt(run.schema, data, node.path), pathNames(node.path)));
    case 'Fetch':
      return collected(run, () => fetchRoot(run, node, data));
    case 'BatchFetch':
      return collected(run, () => fetchBatch(run, node, data));
    default:
      throw new Error(`plan node ${node.kind} is not executed here`);
  }
}

/** A fetch that fails as a whole is an error of the answer, as in the gateway. */
async function collected(run: HivePlanRun, fetch: () => Promise<void>): Promise<void> {
  try {
    await fetch();
  } catch (error) {
    run.errors.push(error as GraphQLError);
  }
}

async function fetchRoot(run: HivePlanRun, fetch: FetchNode, data: Record<string, unknown>): Promise<void> {
  const received = await send(run, fetch, fetchVariables(fetch, run.variables), (path) => [path ? [...path] : undefined]);
  deepMerge(data, rewritten(run.schema, received, fetch.outputRewrites) as Entity | null | undefined);
}

async function fetchEntities(run: HivePlanRun, fetch: FetchNode, located: Located[], flattenPath: Path): Promise<void> {
  const targets: Located[] = [];
  const representations = new EntityRepresentations();
  /** The representation sent for each target. */
  const indexes: number[] = [];
  for (const location of located) {
    const representation = representationOf(run.schema, location.entity, fetch.requires!, fetch.inputRewrites);
    if (!representation) continue;
    targets.push(location);
    indexes.push(representations.indexOf(representation));
  }
  if (targets.length < 1) return;
  const variables = fetchVariables(fetch, run.variables);
  if ('representations' in variables) throw new Error('Variables cannot contain key "representations"');
  variables.representations = representations.sent;
  const received = await send(
    run,
    fetch,
    variables,
    (path) => {
      if (typeof path?.[1] === 'number') return entityErrorPaths(indexes, path[1], path.slice(2), (i) => targets[i]!.path);
      return [path ? [...flattenPath, ...path] : undefined];
    },
    run.raw?.get(fetch),
  );
  if (!received) return;
  const entities = rewritten(run.schema, received._entities, fetch.outputRewrites);
  if (!Array.isArray(entities)) throw new Error('Expected "data._entities" in response to be an array');
  if (entities.length !== representations.sent.length) throw new Error(`Expected "data._entities" to contain ${representations.sent.length} elements`);
  targets.forEach((target, i) => mergeEntity(target.entity, entities[indexes[i]!] as Entity | null));
}

/** One request with an `_entities` alias per entity fetch of the batch. */
async function fetchBatch(run: HivePlanRun, batch: BatchFetchNode, data: Record<string, unknown>): Promise<void> {
  const lists = new Map<string, EntityRepresentations>();
  const aliases = new Map<string, { alias: EntityBatchAlias; targets: Located[]; indexes: number[] }>();
  for (const alias of batch.entityBatch.aliases) {
    let list = lists.get(alias.representationsVariableName);
    if (!list) lists.set(alias.representationsVariableName, (list = new EntityRepresentations()));
    const state = { alias, targets: [] as Located[], indexes: [] as number[] };
    for (const path of alias.paths) {
      for (const location of entitiesAt(run.schema, data, path)) {
        const representation = representationOf(run.schema, location.entity, alias.requires, alias.inputRewrites);
        if (!representation) continue;
        state.targets.push(location);
        state.indexes.push(list.indexOf(representation));
      }
    }
    aliases.set(alias.alias, state);
  }
  if ([...lists.values()].every((list) => list.sent.length === 0)) return;
  const variables = fetchVariables(batch, run.variables);
  for (const [name, list] of lists) {
    if (name in variables) throw new Error(`Variables cannot contain key "${name}"`);
    variables[name] = list.sent;
  }
  const received = await send(run, batch, variables, (path) => {
    const state = typeof path?.[0] === 'string' ? aliases.get(path[0]) : undefined;
    if (state && typeof path?.[1] === 'number') return entityErrorPaths(state.indexes, path[1], path.slice(2), (i) => state.targets[i]!.path);
    return [path ? [...path] : undefined];
  });
  if (!received) return;
  for (const [name, state] of aliases) {
    if (state.targets.length === 0) continue;
    const entities = rewritten(run.schema, received[name], state.alias.outputRewrites);
    if (!Array.isArray(entities)) throw new Error(`Expected "data.${name}" in response to be an array`);
    state.targets.forEach((target, i) => mergeEntity(target.entity, entities[state.indexes[i]!] as Entity | null));
  }
}

function mergeEntity(target: Entity, received: Entity | null | undefined): void {
  // A copy: a received answer may be shared (answer-cache.ts).
  deepMerge(target, received && !received.__typename ? { ...received, __typename: target.__typename } : received);
}

/** One subgraph request; its errors land in `run.errors` with paths into the client's answer. */
async function send(
  run: HivePlanRun,
  fetch: FetchNode | BatchFetchNode,
  variables: Record<string, unknown>,
  pathsOf: ErrorPaths,
  raw?: RawSubtrees,
): Promise<Record<string, unknown> | null | undefined> {
  const source: SubgraphClient | undefined = run.subgraphs[fetch.serviceName];
  if (!source) throw new Error(`Couldn't find service with name "${fetch.serviceName}"`);
  const response = await source.fetch({ query: fetch.operation, variables, operationName: fetch.operationName }, run.context, raw);
  relayErrors(run, response.errors, fetch.serviceName, pathsOf);
  return response.data as Record<string, unknown> | null | undefined;
}

/** The entities a typed flatten path reaches, each with its concrete path, made writable on the way (`thawed`): they are merged into. */
function entitiesAt(schema: GraphQLSchema, data: unknown, segments: readonly FlattenNodePathSegment[]): Located[] {
  const found: Located[] = [];
  const walk = (value: unknown, index: number, path: Path) => {
    if (value === null || value === undefined || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      // `@`, or the end of the path on a list: every element.
      const next = segments[index] === '@' ? index + 1 : index;
      for (let i = 0; i < value.length; i++) walk(thawed(value, i), next, [...path, i]);
      return;
    }
    const segment = segments[index];
    const object = value as Entity;
    if (segment === undefined) {
      found.push({ entity: object, path });
    } else if (segment === '@') {
      return;
    } else if ('Field' in segment) {
      if (Object.hasOwn(object, segment.Field)) walk(thawed(object, segment.Field), index + 1, [...path, segment.Field]);
    } else if (typeof object.__typename !== 'string' || satisfies(schema, object.__typename, segment.TypeCondition)) {
      walk(object, index + 1, path);
    }
  };
  walk(data, 0, []);
  return found;
}

/** The response names of a flatten path, for an error the subgraph gave without an entity index. */
function pathNames(segments: readonly FlattenNodePathSegment[]): Path {
  return segments.flatMap((segment) => (segment === '@' ? ['@'] : 'Field' in segment ? [segment.Field] : []));
}

/** Whether an object of type `typename` is one of `conditions` or implements / belongs to one. */
function satisfies(schema: GraphQLSchema, typename: unknown, conditions: readonly string[]): boolean {
  if (typeof typename !== 'string') return false;
  if (conditions.includes(typename)) return true;
  const type = schema.getType(typename);
  if (!isObjectType(type)) return false;
  return conditions.some((name) => {
    const condition = schema.getType(name);
    return isAbstractType(condition) && schema.isSubType(condition, type);
  });
}

/**
 * An entity's representation: what `requires` selects of it, rewritten; null when a selected field
 * is missing or it has no `__typename` (the gateway's `executeFetch` skips such an entity).
 */
function representationOf(schema: GraphQLSchema, entity: Entity, requires: readonly RequiresSelection[], inputRewrites: FetchRewrite[] | undefined): Entity | null {
  const representation = select(schema, entity, requires);
  if (!representation?.__typename) return null;
  return rewritten(schema, representation, inputRewrites) as Entity;
}

function select(schema: GraphQLSchema, source: Entity | null, selections: readonly RequiresSelection[]): Entity | null {
  if (source === null) return null;
  const result: Entity = {};
  for (const selection of selections) {
    if (selection.kind === 'Field') {
      const written = selection.alias ?? selection.name;
      let value = Object.hasOwn(source, selection.name) ? source[selection.name] : undefined;
      if (value === undefined && Object.hasOwn(source, written)) value = source[written];
      if (value === undefined) return null;
      // A subtree kept as text (passthrough.ts) is read from its value.
      if (value instanceof RawJson) value = value.parsed();
      const nested = selection.selections;
      if (Array.isArray(value)) result[written] = value.map((element) => (nested ? select(schema, element as Entity | null, nested) : element));
      else result[written] = nested ? select(schema, value as Entity | null, nested) : value;
    } else if (selection.kind === 'InlineFragment' && satisfies(schema, source.__typename, [selection.typeCondition])) {
      deepMerge(result, select(schema, source, selection.selections));
    }
  }
  return result;
}

/**
 * Applies value setters and key renamers in order. Each builds new objects and lists along its path
 * and leaves what it was given as it was: a received answer may be shared (answer-cache.ts, frozen)
 * or still be another fetch's data.
 */
function rewritten(schema: GraphQLSchema, value: unknown, rewrites: readonly FetchRewrite[] | undefined): unknown {
  let current = value;
  for (const rewrite of rewrites ?? []) {
    if ('KeyRenamer' in rewrite) current = renameKey(schema, current, rewrite.KeyRenamer.path, rewrite.KeyRenamer.renameKeyTo);
    else {
      const setter = 'ValueSetter' in rewrite ? rewrite.ValueSetter : rewrite;
      current = setValue(schema, current, setter.path, setter.setValueTo);
    }
  }
  return current;
}

function setValue(schema: GraphQLSchema, value: unknown, path: readonly FetchNodePathSegment[], to: string): unknown {
  return along(
    schema,
    value,
    path,
    (object, key) => (object[key] === to ? object : { ...object, [key]: to }),
    () => to,
  );
}

/** The value with the key at the end of `path` renamed `to` (moved last, as a rename in place moved it). */
function renameKey(schema: GraphQLSchema, value: unknown, path: readonly FetchNodePathSegment[], to: string): unknown {
  return along(schema, value, path, (object, key) => {
    if (!Object.hasOwn(object, key)) return object;
    const { [key]: renamed, ...others } = object;
    return { ...others, [to]: renamed };
  });
}

/**
 * `change` applied to each object reached at the last key of `path` (every element of a list on the
 * way, objects passing its `TypenameEquals` segments), with new objects along the path to it;
 * `atEnd` for a value the path ends on.
 */
function along(
  schema: GraphQLSchema,
  value: unknown,
  path: readonly FetchNodePathSegment[],
  change: (object: Entity, key: string) => Entity,
  atEnd: (value: unknown) => unknown = (value) => value,
): unknown {
  if (Array.isArray(value)) return value.map((element) => along(schema, element, path, change, atEnd));
  const [head, ...rest] = path;
  if (head === undefined) return atEnd(value);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Entity;
  if ('TypenameEquals' in head) return typenameMatches(schema, object, head.TypenameEquals) ? along(schema, object, rest, change, atEnd) : object;
  if (rest.length === 0) return change(object, head.Key);
  const nested = object[head.Key];
  return nested === null || nested === undefined ? object : { ...object, [head.Key]: along(schema, nested, rest, change, atEnd) };
}

/** A `TypenameEquals` segment: an object without `__typename` passes (it is the type the plan expects there). */
function typenameMatches(schema: GraphQLSchema, object: Entity, types: string | readonly string[]): boolean {
  return object.__typename === undefined || satisfies(schema, object.__typename, typeof types === 'string' ? [types] : types);
}
