import { Kind, type SelectionSetNode } from 'graphql';
import { type MeasuredOperation, perFragment } from './measure.js';

/**
 * Selections (fields, inline fragments, fragment spreads) an operation holds once every fragment
 * spread is replaced by its fragment, as a query planner sees it: a fragment's count at each spread,
 * duplicates included. This is what Hive's planner inlines before it plans, in time and memory that
 * grow with it (24 fragments each spreading the next twice: 2^25 selections from 1,179 bytes), and
 * what Apollo's planner bounds as `max_recursive_selections`. Measured in one walk of each fragment
 * (perFragment), so the measure itself is linear in the document. Past Number.MAX_SAFE_INTEGER the
 * count stays there: a figure beyond any limit, still a number in the refusal's JSON.
 */
export function operationSelections({ operation, fragments }: MeasuredOperation): number {
  const fragmentSelections = perFragment(fragments, (fragment) => selectionsOf(fragment.selectionSet));
  function selectionsOf(set: SelectionSetNode): number {
    let count = 0;
    for (const selection of set.selections) {
      const inner = selection.kind === Kind.FRAGMENT_SPREAD ? fragmentSelections(selection.name.value) : selection.selectionSet ? selectionsOf(selection.selectionSet) : 0;
      count = Math.min(Number.MAX_SAFE_INTEGER, count + 1 + inner);
    }
    return count;
  }
  return selectionsOf(operation.selectionSet);
}
