import {
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  Kind,
  type SelectionSetNode,
  getNamedType,
  isCompositeType,
  isListType,
  isWrappingType,
} from 'graphql';
import { type Operation, operationLimitPlugin, perFragment } from './operation-limit.js';

/** How many items a list field is assumed to return: the schema does not bound our lists. */
export const ESTIMATED_LIST_SIZE = 10;

/**
 * Static cost of an operation, in the manner of Apollo's demand control: a field of an object,
 * interface or union type costs 1 plus its selection, a scalar or enum field 0, and a list field
 * its item's cost times ESTIMATED_LIST_SIZE (per list level). Meta-fields (`__typename`,
 * introspection) cost nothing: the gateway answers them without a subgraph.
 */
export function operationCost({ operation, fragments, schema }: Operation): number {
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
    const itemCost = isCompositeType(type) && field.selectionSet ? 1 + costOf(field.selectionSet, type) : 0;
    return itemCost * listFactor(definition.type);
  }
  return costOf(operation.selectionSet, schema.getRootType(operation.operation)!);
}

function listFactor(type: GraphQLOutputType): number {
  let factor = 1;
  for (let t: GraphQLOutputType = type; isWrappingType(t); t = t.ofType) if (isListType(t)) factor *= ESTIMATED_LIST_SIZE;
  return factor;
}

/** QUERY_TOO_COMPLEX above `max` (GRAPHQL_MAX_COST). */
export function costLimit(max: number) {
  return operationLimitPlugin({ what: 'cost', code: 'QUERY_TOO_COMPLEX', max, measure: operationCost });
}
