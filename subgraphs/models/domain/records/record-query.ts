import { DomainError } from '../../../../kernel/errors.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import { type FilterPlace, type FilterProblem, type RecordFilter, RecordFilterError, parseRecordFilter } from '../../../../kernel/records/record-filter.js';

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
 * with errors in the typed input's own terms: its path (`filter.conditions[0].value`) and names
 * (`CREATED_AT`, `IN`, `value.dateTime`), never the JSON form's, which the client never wrote.
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
    throw error instanceof RecordFilterError ? inTypedTerms(error.place, error.problem, error.place?.list === 'sort' ? order : conditions) : error;
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

/**
 * The graph's names are the filter language's in capitals (RecordField, FilterOperator: record-types.ts),
 * and its operands the members of a FilterValue.
 */
const term = (name: string) => name.toUpperCase();

/** A refusal of the filter language, at the part of the typed input the client wrote, in its words. */
function inTypedTerms(place: FilterPlace, problem: FilterProblem, written: readonly { field: RecordField }[]): DomainError {
  const at = place === null ? 'filter' : place.list === 'where' ? `filter.conditions[${place.index}]` : `orderBy[${place.index}]`;
  switch (problem.kind) {
    case 'terms':
      return invalid('filter', `at most ${problem.max} terms (conditions, IN values, orderBy keys and PAYLOAD path segments together)`);
    case 'shape':
      return invalid(at, problem.reason);
    case 'field':
      if (place !== null && written[place.index]?.field !== 'payload') return invalid(`${at}.field`, 'not a RecordField');
      return invalid(`${at}.path`, 'a PAYLOAD path is keys of [A-Za-z0-9_-] joined by dots, each key with any [n] indexes (product_info.product_category, parameter_assessments[0].parameter_id)');
    case 'unstorable':
      // `$` is the operand itself; a deeper JSONPath points inside a `json` member.
      return invalid(`${at}.${problem.op === 'in' ? 'values' : 'value'}`, problem.at === '$' ? problem.reason : `${problem.at}: ${problem.reason}`);
    case 'operator':
      return invalid(`${at}.operator`, 'not a FilterOperator');
    case 'value-required':
      return invalid(`${at}.value`, 'this operator needs a value');
    case 'contains-timestamp':
      return invalid(`${at}.operator`, `CONTAINS does not apply to ${term(problem.column)}: compare instants with EQ, NE, IN, GT, GTE, LT or LTE`);
    case 'in-values':
      return invalid(`${at}.values`, 'IN takes at least one value, each a string, number, boolean, dateTime or null');
    case 'exists-boolean':
      return invalid(`${at}.value`, 'EXISTS takes value.boolean');
    case 'range-operand':
      return invalid(`${at}.value`, `${term(problem.op)} takes value.number, value.string or value.dateTime`);
    case 'timestamp-operand':
      return invalid(`${at}.${problem.op === 'in' ? 'values' : 'value'}`, `${term(problem.column)} takes value.dateTime (an ISO 8601 instant)`);
    case 'direction':
      return invalid(`${at}.direction`, 'not an OrderDirection');
  }
}

function invalid(at: string, reason: string): DomainError {
  return new DomainError('BAD_REQUEST', `invalid query filter: ${at}: ${reason}`, { at, reason });
}
