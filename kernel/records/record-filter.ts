import { DomainError } from '../errors.js';
import type { JsonValue } from './canonical-json.js';
import { unstorable } from './storable-json.js';

/**
 * The records query filter (DECISIONS section 3 "query"), parsed and checked before anything reaches
 * SQL: a malformed filter is a 400 BAD_REQUEST whose details name the bad part and why, never a
 * filter that silently matches nothing.
 */
export interface RecordFilter {
  where: Condition[];
  sort: SortKey[];
  limit: number;
  offset: number;
}

export type Condition =
  | { op: 'eq' | 'ne' | 'contains'; field: Field; value: JsonValue }
  | { op: 'in'; field: Field; values: Scalar[] }
  | { op: 'exists'; field: Field; value: boolean }
  | { op: RangeOperator; field: Field; value: number | string };

export type RangeOperator = 'gt' | 'gte' | 'lt' | 'lte';

export interface SortKey {
  field: Field;
  direction: 'asc' | 'desc';
}

/**
 * A queryable field. Timestamp operands are normalised to ISO 8601 UTC with milliseconds (the stored
 * precision), so the translator compares instants, never texts.
 */
export type Field = { kind: 'text'; column: 'id' | 'model' | 'version' } | { kind: 'timestamp'; column: 'created_at' | 'updated_at' } | { kind: 'payload'; path: PathSegment[] };

/** An object key (string) or an array index (number). */
export type PathSegment = string | number;

export type Scalar = null | boolean | number | string;

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/**
 * Conditions, `in` elements, sort keys and payload path segments a filter may hold in all. Each one
 * becomes bound parameters of the one SELECT, which databases cap (SQLite at 32,766): past this
 * budget a filter is a 400, not a store failure.
 */
export const MAX_FILTER_TERMS = 1000;

const OPERATORS = ['eq', 'ne', 'in', 'contains', 'exists', 'gt', 'gte', 'lt', 'lte'] as const;
const TEXT_COLUMNS = ['id', 'model', 'version'] as const;
const TIMESTAMP_COLUMNS = ['created_at', 'updated_at'] as const;
const PAYLOAD_PATH = /^payload((?:\.[A-Za-z0-9_-]+(?:\[\d{1,9}\])*)+)$/;
const PATH_SEGMENT = /\.([A-Za-z0-9_-]+)|\[(\d+)\]/g;

/**
 * Why a condition, a sort key or the whole filter is refused, in the filter language's own terms.
 * The error (RecordFilterError) words it in the filter's JSON form, the REST contract's (`reason`);
 * the graph words the same problem in its typed input's terms (models' domain/records/record-query.ts).
 */
export type FilterProblem =
  | { kind: 'shape'; reason: string }
  | { kind: 'field' }
  | { kind: 'unstorable'; op: unknown; at: string; reason: string }
  | { kind: 'operator' }
  | { kind: 'value-required' }
  | { kind: 'contains-timestamp'; column: TimestampColumn }
  | { kind: 'in-values' }
  | { kind: 'exists-boolean' }
  | { kind: 'range-operand'; op: RangeOperator }
  | { kind: 'timestamp-operand'; op: Operator; column: TimestampColumn }
  | { kind: 'direction' }
  | { kind: 'terms'; max: number };

/** Where a refused part is: the filter, its `where[index]` or its `sort[index]`. */
export type FilterPlace = { list: 'where' | 'sort'; index: number } | null;

/** A BAD_REQUEST whose details are the REST contract's `{at, reason, given}`, with the problem behind them. */
export class RecordFilterError extends DomainError {
  constructor(
    readonly place: FilterPlace,
    readonly problem: FilterProblem,
    given: unknown,
  ) {
    const at = place === null ? 'filter' : `${place.list}[${place.index}]`;
    const reason = restReason(problem);
    super('BAD_REQUEST', `invalid query filter: ${at}: ${reason}`, { at, reason, given: given ?? null });
  }
}

type Operator = (typeof OPERATORS)[number];
type TimestampColumn = (typeof TIMESTAMP_COLUMNS)[number];

/** The reasons of DECISIONS section 3 "query", as REST clients read them. */
function restReason(problem: FilterProblem): string {
  switch (problem.kind) {
    case 'shape':
      return problem.reason;
    case 'field':
      return 'field must be id, model, version, created_at, updated_at or payload.<key> with keys of [A-Za-z0-9_-] and [n] indexes';
    case 'unstorable':
      return `value ${problem.at}: ${problem.reason}`;
    case 'operator':
      return `op must be one of ${OPERATORS.join(', ')}`;
    case 'value-required':
      return 'value is required';
    case 'contains-timestamp':
      return 'contains does not apply to a timestamp field';
    case 'in-values':
      return 'in takes a non-empty array of scalars';
    case 'exists-boolean':
      return 'exists takes a boolean';
    case 'range-operand':
      return `${problem.op} takes a number or a string`;
    case 'timestamp-operand':
      return `${problem.column} takes an ISO 8601 timestamp`;
    case 'direction':
      return 'direction must be asc or desc';
    case 'terms':
      return `at most ${problem.max} terms (conditions, in values, sort keys and payload path segments together)`;
  }
}

/** Parses the request's `filter` (absent: every record, default order and page). */
export function parseRecordFilter(raw: unknown): RecordFilter {
  if (raw === undefined || raw === null) return { where: [], sort: [], limit: DEFAULT_LIMIT, offset: 0 };
  const filter = objectWithKeys(raw, ['where', 'sort', 'limit', 'offset'], (reason) => invalid('filter', reason, raw));
  const parsed: RecordFilter = {
    where: listOf(filter.where, 'where').map((item, index) => parseCondition(item, { list: 'where', index })),
    sort: listOf(filter.sort, 'sort').map((item, index) => parseSortKey(item, { list: 'sort', index })),
    limit: integerIn(filter.limit, 'limit', 0, MAX_LIMIT, DEFAULT_LIMIT),
    offset: integerIn(filter.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 0),
  };
  const terms = termsOf(parsed);
  if (terms > MAX_FILTER_TERMS) throw new RecordFilterError(null, { kind: 'terms', max: MAX_FILTER_TERMS }, terms);
  return parsed;
}

function termsOf(filter: RecordFilter): number {
  const fieldTerms = (field: Field) => (field.kind === 'payload' ? field.path.length : 1);
  const conditions = filter.where.reduce((sum, c) => sum + fieldTerms(c.field) + (c.op === 'in' ? c.values.length : 1), 0);
  return filter.sort.reduce((sum, key) => sum + fieldTerms(key.field), conditions);
}

type Fail = (problem: FilterProblem) => never;

function failAt(place: FilterPlace, given: unknown): Fail {
  return (problem) => {
    throw new RecordFilterError(place, problem, given);
  };
}

function parseCondition(raw: unknown, place: FilterPlace): Condition {
  const fail = failAt(place, raw);
  const condition = objectWithKeys(raw, ['field', 'op', 'value'], (reason) => fail({ kind: 'shape', reason }));
  const field = parseField(condition.field, fail);
  // A value the stores cannot hold (storable-json.ts) would fail in SQL on PostgreSQL only.
  const unusable = unstorable(condition.value);
  if (unusable !== null) return fail({ kind: 'unstorable', op: condition.op, ...unusable });
  const op = condition.op;
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op)) return fail({ kind: 'operator' });
  if (!('value' in condition)) return fail({ kind: 'value-required' });
  const value = condition.value as JsonValue;
  switch (op as Operator) {
    case 'eq':
    case 'ne':
      return { op: op as 'eq' | 'ne', field, value: operand(op as Operator, field, value, fail) };
    case 'contains':
      if (field.kind === 'timestamp') return fail({ kind: 'contains-timestamp', column: field.column });
      return { op: 'contains', field, value };
    case 'in':
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) return fail({ kind: 'in-values' });
      return { op: 'in', field, values: value.map((item) => operand('in', field, item, fail) as Scalar) };
    case 'exists':
      if (typeof value !== 'boolean') return fail({ kind: 'exists-boolean' });
      return { op: 'exists', field, value };
    default:
      if (typeof value !== 'number' && typeof value !== 'string') return fail({ kind: 'range-operand', op: op as RangeOperator });
      return { op: op as RangeOperator, field, value: operand(op as Operator, field, value, fail) as number | string };
  }
}

/** Timestamp fields take ISO 8601 instants; every other field takes any JSON value as it is. */
function operand(op: Operator, field: Field, value: JsonValue, fail: Fail): JsonValue {
  if (field.kind !== 'timestamp') return value;
  const instant = typeof value === 'string' ? parseInstant(value) : null;
  return instant ?? fail({ kind: 'timestamp-operand', op, column: field.column });
}

function parseSortKey(raw: unknown, place: FilterPlace): SortKey {
  const fail = failAt(place, raw);
  const key = objectWithKeys(raw, ['field', 'direction'], (reason) => fail({ kind: 'shape', reason }));
  const field = parseField(key.field, fail);
  const direction = key.direction ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') return fail({ kind: 'direction' });
  return { field, direction };
}

function parseField(raw: unknown, fail: Fail): Field {
  if ((TEXT_COLUMNS as readonly unknown[]).includes(raw)) return { kind: 'text', column: raw as 'id' };
  if ((TIMESTAMP_COLUMNS as readonly unknown[]).includes(raw)) return { kind: 'timestamp', column: raw as 'created_at' };
  const match = typeof raw === 'string' ? PAYLOAD_PATH.exec(raw) : null;
  if (match === null) return fail({ kind: 'field' });
  const path = Array.from(match[1]!.matchAll(PATH_SEGMENT), ([, key, index]) => key ?? Number(index));
  return { kind: 'payload', path };
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

/**
 * An ISO 8601 date or date-time as `YYYY-MM-DDTHH:mm:ss.sssZ`, or null. A date alone is midnight UTC;
 * a date-time without an offset is read as UTC. Precision beyond milliseconds is dropped.
 */
export function parseInstant(text: string): string | null {
  const match = ISO_8601.exec(text);
  if (match === null) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', , sign, offsetHours = '0', offsetMinutes = '0'] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const [y, mo, d, h, mi, s] = fields;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59 || Number(offsetHours) > 23 || Number(offsetMinutes) > 59) {
    return null;
  }
  const local = new Date(Date.UTC(y, mo - 1, d, h, mi, s, Number(fraction.padEnd(3, '0').slice(0, 3))));
  local.setUTCFullYear(y); // Date.UTC maps years 0–99 to 1900–1999
  if (local.getUTCDate() !== d) return null; // 31 April and the like
  const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 * (sign === '-' ? -1 : 1);
  return new Date(local.getTime() - offset).toISOString();
}

function objectWithKeys(raw: unknown, allowed: readonly string[], fail: (reason: string) => never): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return fail('must be an object');
  const unknown = Object.keys(raw).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) return fail(`unknown member ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
  return raw as Record<string, unknown>;
}

function listOf(raw: unknown, at: string): unknown[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return invalid(at, 'must be an array', raw);
  return raw;
}

function integerIn(raw: unknown, at: string, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!Number.isInteger(raw) || (raw as number) < min || (raw as number) > max) {
    return invalid(at, `must be an integer from ${min} to ${max}`, raw);
  }
  return raw as number;
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ['boolean', 'number', 'string'].includes(typeof value);
}

/** A refusal of the REST form's own members (`filter`, `where`, `limit`, …), which the typed filter does not have. */
function invalid(at: string, reason: string, given: unknown): never {
  throw new DomainError('BAD_REQUEST', `invalid query filter: ${at}: ${reason}`, { at, reason, given: given ?? null });
}
