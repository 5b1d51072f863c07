import { Kind, type SelectionSetNode } from 'graphql';
import { type MeasuredOperation, perFragment } from './measure.js';

/**
 * Nesting depth of an operation's fields: `{ a { b } }` is 2; fragments add no level. Introspection
 * fields count as leaves: the gateway answers them from its schema, and GRAPHQL_INTROSPECTION
 * decides whether they are allowed at all.
 */
export function operationDepth({ operation, fragments }: MeasuredOperation): number {
  const fragmentDepth = perFragment(fragments, (fragment) => depthOf(fragment.selectionSet));
  function depthOf(set: SelectionSetNode): number {
    let deepest = 0;
    for (const selection of set.selections) {
      const depth =
        selection.kind === Kind.FIELD
          ? 1 + (selection.selectionSet && !selection.name.value.startsWith('__') ? depthOf(selection.selectionSet) : 0)
          : selection.kind === Kind.INLINE_FRAGMENT
            ? depthOf(selection.selectionSet)
            : fragmentDepth(selection.name.value);
      deepest = Math.max(deepest, depth);
    }
    return deepest;
  }
  return depthOf(operation.selectionSet);
}
