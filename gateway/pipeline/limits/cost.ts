import {
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  isScalarType,
  isWrappingType,
} from 'graphql';
import type { MeasuredOperation } from './measure.js';

/** How many items a list field is assumed to return when nothing in the request says. */
export const ESTIMATED_LIST_SIZE = 10;

/**
 * What a free-form JSON value (a record's `payload`, a raw report) costs: it is a whole document of
 * the caller's making, not a bounded scalar. Priced as ten fields, so that a page of 1,000 records
 * with their payloads costs about 11,000 and fifteen aliases of it (a 75 MB answer) are refused.
 */
export const FREE_FORM_JSON_COST = 10;
const FREE_FORM_SCALARS = new Set(['JSON', 'JSONObject']);

/** Arguments that say how many items a list field, or a connection's page, holds. */
const SIZE_ARGUMENTS = new Set(['first', 'last', 'limit']);

/** The list fields of a connection (Relay's `edges` and `nodes`): as long as the page the connection field asks for. */
const CONNECTION_LISTS = new Set(['edges', 'nodes']);

/**
 * Static cost of an operation, in the manner of Apollo's demand control: a field of an object,
 * interface or union type costs 1 plus its selection, a scalar or enum field 0 (free-form JSON
 * FREE_FORM_JSON_COST), and a list field its item's cost times its size: its `first`, `last` or
 * `limit` argument, from the request's literals or variables, else ESTIMATED_LIST_SIZE; nested list
 * levels count ESTIMATED_LIST_SIZE each. A connection (a field whose type is an object or interface
 * named `…Connection`) is one object whose page size is read so from its own arguments and applies
 * to its `edges` and `nodes` lists (directly or through fragments on the connection type); its
 * other fields (`pageInfo`, `totalCount`) are not multiplied, as Apollo's `@listSize(slicingArguments,
 * sizedFields)` prices a connection. Meta-fields (`__typename`, introspection) cost nothing: the
 * gateway answers them without a subgraph.
 */
export function operationCost({ operation, fragments, schema, variables }: MeasuredOperation): number {
  const typeNamed = (name: string) => schema.getType(name) as GraphQLCompositeType;
  // A fragment is walked once per page size it is spread under (connection fragments depend on it),
  // so that fragments spreading each other twice over cannot make measuring exponential.
  const fragmentCosts = new Map<string, number>();
  function fragmentCost(name: string, page: number | undefined): number {
    const key = page === undefined ? name : `${name}\u0000${page}`;
    let cost = fragmentCosts.get(key);
    if (cost === undefined) {
      const fragment = fragments.get(name)!;
      cost = costOf(fragment.selectionSet, typeNamed(fragment.typeCondition.name.value), page);
      fragmentCosts.set(key, cost);
    }
    return cost;
  }
  /** `page`: the size of the connection this is the selection of (undefined anywhere else). */
  function costOf(set: SelectionSetNode, parent: GraphQLCompositeType, page: number | undefined): number {
    const inConnection = page !== undefined && isConnection(parent) ? page : undefined;
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) cost += fieldCost(selection, parent, inConnection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) cost += costOf(selection.selectionSet, selection.typeCondition ? typeNamed(selection.typeCondition.name.value) : parent, inConnection);
      else cost += fragmentCost(selection.name.value, inConnection);
    }
    return cost;
  }
  function fieldCost(field: FieldNode, parent: GraphQLCompositeType, page: number | undefined): number {
    const definition = 'getFields' in parent ? parent.getFields()[field.name.value] : undefined;
    if (!definition) return 0;
    const type = getNamedType(definition.type);
    const size = page !== undefined && CONNECTION_LISTS.has(field.name.value) ? page : listSize(field, variables);
    const itemCost = isCompositeType(type) && field.selectionSet
      ? 1 + costOf(field.selectionSet, type, isConnection(type) ? size : undefined)
      : isScalarType(type) && FREE_FORM_SCALARS.has(type.name) ? FREE_FORM_JSON_COST : 0;
    return itemCost * listFactor(definition.type, size);
  }
  return costOf(operation.selectionSet, schema.getRootType(operation.operation)!, undefined);
}

/** A Relay-style connection type: an object or interface named `…Connection`. */
function isConnection(type: GraphQLNamedType): boolean {
  return (isObjectType(type) || isInterfaceType(type)) && type.name.endsWith('Connection');
}

/** The first list level counts `size` items, every deeper one ESTIMATED_LIST_SIZE. */
function listFactor(type: GraphQLOutputType, size: number): number {
  let factor = 1;
  let levels = 0;
  for (let t: GraphQLOutputType = type; isWrappingType(t); t = t.ofType) if (isListType(t)) factor *= levels++ === 0 ? size : ESTIMATED_LIST_SIZE;
  return factor;
}

/** The size the request gives the list or connection (see operationCost), or ESTIMATED_LIST_SIZE. */
function listSize(field: FieldNode, variables: Readonly<Record<string, unknown>>): number {
  for (const argument of field.arguments ?? []) {
    if (!SIZE_ARGUMENTS.has(argument.name.value)) continue;
    const value = valueOf(argument.value, variables);
    if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, Math.ceil(value));
  }
  return ESTIMATED_LIST_SIZE;
}

/** A literal or variable argument value, as a number when it is one (what a size is read from). */
function valueOf(node: ValueNode, variables: Readonly<Record<string, unknown>>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    default:
      return undefined;
  }
}
