import type { Condition, Field, RecordFilter, SortKey } from '../../kernel/records/record-filter.js';
import { parseRecordFilter } from '../../kernel/records/record-filter.js';
import type { FilterValue, RecordCondition, RecordField, RecordOrder } from '../generated/operations.js';

/** A REST query's filter as the graph's `records` arguments. */
export interface RecordQueryVariables {
  filter: { conditions: RecordCondition[] };
  orderBy: RecordOrder[];
  first: number;
}

/**
 * The REST filter (DECISIONS section 3 "query": `{where, sort, limit, offset}`) read with the filter
 * language's own parser, so a malformed one is the contract's 400 with its details, then written as
 * the graph's typed filter. `limit` is the page size; `offset`, which the graph does not have (its
 * pages are keyset pages), becomes a cursor: the route's prelude asks for the end of the first `offset`
 * records (`afterOffset`).
 */
export function recordQueryVariables(rawFilter: unknown): RecordQueryVariables {
  const parsed: RecordFilter = parseRecordFilter(rawFilter ?? undefined);
  return { filter: { conditions: parsed.where.map(conditionOf) }, orderBy: parsed.sort.map(orderOf), first: parsed.limit };
}

/** Where a page of the graph ends (a records connection's `pageInfo`). */
export interface PageEnd {
  hasNextPage: boolean;
  endCursor?: string | null;
}

/**
 * The graph's largest page (`first` is at most 1,000, refused above like any page): a REST offset
 * is skipped that many records at a time.
 */
export const SKIP_STEP = 1000;

/**
 * The route's variables for the page that starts at the REST filter's `offset`: its records are
 * skipped a page of keys at a time (`skip`: no payload is read), each after the end of the one before.
 * Nothing (left) to skip: nothing follows either (an empty page, not the first one).
 */
export async function afterOffset<V extends RecordQueryVariables>(
  rawFilter: unknown,
  main: V,
  skip: (page: { filter: V['filter']; orderBy: V['orderBy']; first: number; after?: string }) => Promise<PageEnd | null | undefined>,
): Promise<V & { after?: string }> {
  let left = parseRecordFilter(rawFilter ?? undefined).offset;
  let after: string | undefined;
  while (left > 0) {
    const first = Math.min(left, SKIP_STEP);
    const end = await skip({ filter: main.filter, orderBy: main.orderBy, first, ...(after && { after }) });
    left -= first;
    if (!end?.endCursor || (left > 0 && !end.hasNextPage)) return { ...main, first: 0 };
    after = end.endCursor;
  }
  return after ? { ...main, after } : main;
}

function conditionOf(condition: Condition): RecordCondition {
  const target = fieldOf(condition.field);
  if (condition.op === 'in') return { ...target, operator: 'IN', values: condition.values.map(valueOf) };
  return { ...target, operator: condition.op.toUpperCase() as RecordCondition['operator'], value: valueOf(condition.value) };
}

function orderOf(key: SortKey): RecordOrder {
  return { ...fieldOf(key.field), direction: key.direction === 'asc' ? 'ASC' : 'DESC' };
}

function fieldOf(field: Field): { field: RecordField; path?: string } {
  if (field.kind !== 'payload') return { field: field.column.toUpperCase() as RecordField };
  return { field: 'PAYLOAD', path: field.path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('') };
}

function valueOf(value: unknown): FilterValue {
  if (value === null) return { null: true };
  switch (typeof value) {
    case 'string':
      return { string: value };
    case 'number':
      return { number: value };
    case 'boolean':
      return { boolean: value };
    default:
      return { json: value };
  }
}
