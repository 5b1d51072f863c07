import { Kind, type SelectionSetNode } from 'graphql';
import { type MeasuredOperation, perFragment } from './measure.js';

/**
 * Aliases an operation executes, a fragment's counted at each spread. Aliases are how one request
 * runs the same expensive field many times over, introspection fields included.
 */
export function operationAliases({ operation, fragments }: MeasuredOperation): number {
  const fragmentAliases = perFragment(fragments, (fragment) => aliasesOf(fragment.selectionSet));
  function aliasesOf(set: SelectionSetNode): number {
    let count = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) count += (selection.alias ? 1 : 0) + (selection.selectionSet ? aliasesOf(selection.selectionSet) : 0);
      else if (selection.kind === Kind.INLINE_FRAGMENT) count += aliasesOf(selection.selectionSet);
      else count += fragmentAliases(selection.name.value);
    }
    return count;
  }
  return aliasesOf(operation.selectionSet);
}
