import type { Change } from '@graphql-inspector/core';

/**
 * Which requests a breaking change breaks, from the coordinates they touched (Hive's conditional
 * breaking changes, input-based): a new required argument or input field breaks the requests that
 * use its field or input type without giving it a value; a removed argument or input field breaks
 * those that give it one; anything else breaks the requests that touch its path (a field, a type,
 * an enum value).
 */
export function breaksRequestsThat(change: Change): (touched: ReadonlySet<string>) => boolean {
  const path = change.path ?? '';
  const parent = path.slice(0, path.lastIndexOf('.'));
  switch (change.type) {
    case 'FIELD_ARGUMENT_ADDED':
    case 'INPUT_FIELD_ADDED':
      return (touched) => touched.has(parent) && !touched.has(`${path}!`);
    case 'FIELD_ARGUMENT_TYPE_CHANGED':
    case 'INPUT_FIELD_TYPE_CHANGED':
      return (touched) => touched.has(parent);
    default:
      return (touched) => touched.has(path);
  }
}
