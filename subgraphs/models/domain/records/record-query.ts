import { DomainError } from '../../../../kernel/errors.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { type RecordFilter, parseRecordFilter } from '../../../../kernel/records/record-filter.js';

/** A record field as a typed filter names it: a column, or a path into the payload. */
export type RecordField = 'id' | 'model' | 'version' | 'created_at' | 'updated_at' | 'payload';

/** A typed operand: exactly one member set. */
export interface TypedValue {
  string?: string | null;
  number?: number | null;
  boolean?: boolean | null;
  dateTime?: Date | string | null;
  null?: boolean | null;
  json?: unknown;
}

export interface TypedCondition {
  field: RecordField;
  path?: string | null;
  operator: string;
  value?: TypedValue | null;
  values?: TypedValue[] | null;
}

export interface TypedOrder {
  field: RecordField;
  path?: string | null;
  direction: 'asc' | 'desc';
}

/**
 * A typed filter (the graph's conditions and order) checked by the same filter language as the REST
 * one (record-filter.ts): written in its JSON form and parsed, so both are held to one set of rules,
 * with error details that name the typed input (`filter.conditions[0].value`).
 */
export function typedRecordFilter(conditions: readonly TypedCondition[], order: readonly TypedOrder[]): Pick<RecordFilter, 'where' | 'sort'> {
  const where = conditions.map((condition, index) => ({
    field: fieldName(condition, `filter.conditions[${index}]`),
    op: condition.operator,
    value: condition.operator === 'in' ? valuesOf(condition.values, `filter.conditions[${index}].values`) : valueOf(condition.value, `filter.conditions[${index}].value`),
  }));
  const sort = order.map((key, index) => ({ field: fieldName(key, `orderBy[${index}]`), direction: key.direction }));
  try {
    const { where: parsedWhere, sort: parsedSort } = parseRecordFilter({ where, sort });
    return { where: parsedWhere, sort: parsedSort };
  } catch (error) {
    throw error instanceof DomainError ? inTypedTerms(error) : error;
  }
}

function fieldName({ field, path }: { field: RecordField; path?: string | null }, at: string): string {
  if (field !== 'payload') {
    if (path !== undefined && path !== null) throw invalid(`${at}.path`, 'a path goes with the PAYLOAD field only');
    return field;
  }
  if (path === undefined || path === null || path === '') throw invalid(`${at}.path`, 'PAYLOAD needs a path into the payload');
  return `payload${path.startsWith('[') ? '' : '.'}${path}`;
}

function valueOf(value: TypedValue | null | undefined, at: string): JsonValue {
  if (value === undefined || value === null) throw invalid(at, 'this operator needs a value');
  const set = Object.entries(value).filter(([, member]) => member !== undefined && member !== null);
  if (set.length !== 1) throw invalid(at, 'set exactly one of string, number, boolean, dateTime, null, json');
  const [name, member] = set[0]!;
  if (name === 'null') {
    if (member !== true) throw invalid(at, 'null takes true');
    return null;
  }
  if (name === 'dateTime') {
    if (member instanceof Date && Number.isNaN(member.getTime())) throw invalid(at, 'dateTime must be an instant (ISO 8601)');
    return member instanceof Date ? member.toISOString() : String(member);
  }
  return member as JsonValue;
}

function valuesOf(values: TypedValue[] | null | undefined, at: string): JsonValue[] {
  if (values === undefined || values === null) throw invalid(at, 'IN needs values');
  return values.map((value, index) => valueOf(value, `${at}[${index}]`));
}

/** The filter language's details name its JSON form (`where[0]`, `sort[0]`); the typed input's are these. */
function inTypedTerms(error: DomainError): DomainError {
  const details = error.details as { at?: unknown } | undefined;
  if (typeof details?.at !== 'string') return error;
  const at = details.at.replace(/^where\[/, 'filter.conditions[').replace(/^sort\[/, 'orderBy[');
  // `given` would show the JSON form, which the client never wrote.
  const { given: _given, ...rest } = details as Record<string, unknown>;
  return new DomainError(error.code, error.message.replace(details.at, at), { ...rest, at });
}

function invalid(at: string, reason: string): DomainError {
  return new DomainError('BAD_REQUEST', `invalid query filter: ${at}: ${reason}`, { at, reason });
}
