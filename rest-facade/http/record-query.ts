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
 * records (`afterSkipped`).
 */
export function recordQueryVariables(rawFilter: unknown): RecordQueryVariables {
  const parsed: RecordFilter = parseRecordFilter(rawFilter ?? undefined);
  return { filter: { conditions: parsed.where.map(conditionOf) }, orderBy: parsed.sort.map(orderOf), first: parsed.limit };
}

/** The variables that find where a page starting at the REST filter's `offset` begins; null for the first record. */
export function skipVariables(rawFilter: unknown, { filter, orderBy }: RecordQueryVariables) {
  const { offset } = parseRecordFilter(rawFilter ?? undefined);
  return offset === 0 ? null : { filter, orderBy, first: offset };
}

/**
 * The page after the skipped records. No cursor: nothing was there to skip, so nothing follows
 * either (an empty page, not the first one).
 */
export function afterSkipped<V extends { first: number }>(variables: V, endCursor: string | null | undefined): V & { after?: string } {
  return endCursor ? { ...variables, after: endCursor } : { ...variables, first: 0 };
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
