import {
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
  getNamedType,
  isCompositeType,
  isListType,
  isScalarType,
  isWrappingType,
} from 'graphql';
import { type MeasuredOperation, perFragment } from './measure.js';

/** How many items a list field is assumed to return when nothing in the request says. */
export const ESTIMATED_LIST_SIZE = 10;

/**
 * What a free-form JSON value (a record's `payload`, a raw report) costs: it is a whole document of
 * the caller's making, not a bounded scalar. Priced as ten fields, so that a page of 1,000 records
 * with their payloads costs 11,000 and fifteen aliases of it (a 75 MB answer) are refused.
 */
export const FREE_FORM_JSON_COST = 10;
const FREE_FORM_SCALARS = new Set(['JSON', 'JSONObject']);

/** Arguments that say how many items a list field returns (pagination sizes, the records filter's `limit`). */
const SIZE_ARGUMENTS = new Set(['first', 'last', 'limit']);

/**
 * Static cost of an operation, in the manner of Apollo's demand control: a field of an object,
 * interface or union type costs 1 plus its selection, a scalar or enum field 0 (free-form JSON
 * FREE_FORM_JSON_COST), and a list field its item's cost times its size: the `first`, `last` or
 * `limit` argument (or an object argument's `limit` member, as the records filter has), from the
 * request's literals or variables, else ESTIMATED_LIST_SIZE; nested list levels count
 * ESTIMATED_LIST_SIZE each. Meta-fields (`__typename`, introspection) cost nothing: the gateway
 * answers them without a subgraph.
 */
export function operationCost({ operation, fragments, schema, variables }: MeasuredOperation): number {
  const typeNamed = (name: string) => schema.getType(name) as GraphQLCompositeType;
  const fragmentCost = perFragment(fragments, (fragment) => costOf(fragment.selectionSet, typeNamed(fragment.typeCondition.name.value)));
  function costOf(set: SelectionSetNode, parent: GraphQLCompositeType): number {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) cost += fieldCost(selection, parent);
      else if (selection.kind === Kind.INLINE_FRAGMENT) cost += costOf(selection.selectionSet, selection.typeCondition ? typeNamed(selection.typeCondition.name.value) : parent);
      else cost += fragmentCost(selection.name.value);
    }
    return cost;
  }
  function fieldCost(field: FieldNode, parent: GraphQLCompositeType): number {
    const definition = 'getFields' in parent ? parent.getFields()[field.name.value] : undefined;
    if (!definition) return 0;
    const type = getNamedType(definition.type);
    const itemCost = isCompositeType(type) && field.selectionSet ? 1 + costOf(field.selectionSet, type) : isScalarType(type) && FREE_FORM_SCALARS.has(type.name) ? FREE_FORM_JSON_COST : 0;
    return itemCost * listFactor(definition.type, listSize(field, variables));
  }
  return costOf(operation.selectionSet, schema.getRootType(operation.operation)!);
}

/** The first list level counts `size` items, every deeper one ESTIMATED_LIST_SIZE. */
function listFactor(type: GraphQLOutputType, size: number): number {
  let factor = 1;
  let levels = 0;
  for (let t: GraphQLOutputType = type; isWrappingType(t); t = t.ofType) if (isListType(t)) factor *= levels++ === 0 ? size : ESTIMATED_LIST_SIZE;
  return factor;
}

/** The size the request gives the list (see operationCost), or ESTIMATED_LIST_SIZE. */
function listSize(field: FieldNode, variables: Readonly<Record<string, unknown>>): number {
  for (const argument of field.arguments ?? []) {
    const value = SIZE_ARGUMENTS.has(argument.name.value) ? valueOf(argument.value, variables) : (valueOf(argument.value, variables) as { limit?: unknown } | null)?.limit;
    if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, Math.ceil(value));
  }
  return ESTIMATED_LIST_SIZE;
}

/** A literal or variable argument value as plain data (what a size is read from). */
function valueOf(node: ValueNode, variables: Readonly<Record<string, unknown>>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((member) => [member.name.value, valueOf(member.value, variables)]));
    default:
      return undefined;
  }
}

