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
export type Field =
  | { kind: 'text'; column: 'id' | 'model' | 'version' }
  | { kind: 'timestamp'; column: 'created_at' | 'updated_at' }
  | { kind: 'payload'; path: PathSegment[] };

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

/** Parses the request's `filter` (absent: every record, default order and page). */
export function parseRecordFilter(raw: unknown): RecordFilter {
  if (raw === undefined || raw === null) return { where: [], sort: [], limit: DEFAULT_LIMIT, offset: 0 };
  const filter = objectWithKeys(raw, ['where', 'sort', 'limit', 'offset'], 'filter');
  const parsed: RecordFilter = {
    where: listOf(filter.where, 'where').map((item, index) => parseCondition(item, `where[${index}]`)),
    sort: listOf(filter.sort, 'sort').map((item, index) => parseSortKey(item, `sort[${index}]`)),
    limit: integerIn(filter.limit, 'limit', 0, MAX_LIMIT, DEFAULT_LIMIT),
    offset: integerIn(filter.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, 0),
  };
  const terms = termsOf(parsed);
  if (terms > MAX_FILTER_TERMS) {
    return invalid('filter', `at most ${MAX_FILTER_TERMS} terms (conditions, in values, sort keys and payload path segments together)`, terms);
  }
  return parsed;
}

function termsOf(filter: RecordFilter): number {
  const fieldTerms = (field: Field) => (field.kind === 'payload' ? field.path.length : 1);
  const conditions = filter.where.reduce((sum, c) => sum + fieldTerms(c.field) + (c.op === 'in' ? c.values.length : 1), 0);
  return filter.sort.reduce((sum, key) => sum + fieldTerms(key.field), conditions);
}

function parseCondition(raw: unknown, at: string): Condition {
  const condition = objectWithKeys(raw, ['field', 'op', 'value'], at);
  const fail = (reason: string): never => invalid(at, reason, raw);
  const field = parseField(condition.field, fail);
  // A value the stores cannot hold (storable-json.ts) would fail in SQL on PostgreSQL only.
  const unusable = unstorable(condition.value);
  if (unusable !== null) return fail(`value ${unusable.at}: ${unusable.reason}`);
  const op = condition.op;
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op)) {
    return fail(`op must be one of ${OPERATORS.join(', ')}`);
  }
  if (!('value' in condition)) return fail('value is required');
  const value = condition.value as JsonValue;
  switch (op as (typeof OPERATORS)[number]) {
    case 'eq':
    case 'ne':
      return { op: op as 'eq' | 'ne', field, value: operand(field, value, fail) };
    case 'contains':
      if (field.kind === 'timestamp') return fail('contains does not apply to a timestamp field');
      return { op: 'contains', field, value };
    case 'in':
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) {
        return fail('in takes a non-empty array of scalars');
      }
      return { op: 'in', field, values: value.map((item) => operand(field, item, fail) as Scalar) };
    case 'exists':
      if (typeof value !== 'boolean') return fail('exists takes a boolean');
      return { op: 'exists', field, value };
    default:
      if (typeof value !== 'number' && typeof value !== 'string') return fail(`${op} takes a number or a string`);
      return { op: op as RangeOperator, field, value: operand(field, value, fail) as number | string };
  }
}

/** Timestamp fields take ISO 8601 instants; every other field takes any JSON value as it is. */
function operand(field: Field, value: JsonValue, fail: (reason: string) => never): JsonValue {
  if (field.kind !== 'timestamp') return value;
  const instant = typeof value === 'string' ? parseInstant(value) : null;
  return instant ?? fail(`${field.column} takes an ISO 8601 timestamp`);
}

function parseSortKey(raw: unknown, at: string): SortKey {
  const key = objectWithKeys(raw, ['field', 'direction'], at);
  const field = parseField(key.field, (reason) => invalid(at, reason, raw));
  const direction = key.direction ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') return invalid(at, 'direction must be asc or desc', raw);
  return { field, direction };
}

function parseField(raw: unknown, fail: (reason: string) => never): Field {
  if ((TEXT_COLUMNS as readonly unknown[]).includes(raw)) return { kind: 'text', column: raw as 'id' };
  if ((TIMESTAMP_COLUMNS as readonly unknown[]).includes(raw)) return { kind: 'timestamp', column: raw as 'created_at' };
  const match = typeof raw === 'string' ? PAYLOAD_PATH.exec(raw) : null;
  if (match === null) {
    return fail(
      'field must be id, model, version, created_at, updated_at or payload.<key> with keys of [A-Za-z0-9_-] and [n] indexes',
    );
  }
  const path = Array.from(match[1]!.matchAll(PATH_SEGMENT), ([, key, index]) => key ?? Number(index));
  return { kind: 'payload', path };
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

/**
 * An ISO 8601 date or date-time as `YYYY-MM-DDTHH:mm:ss.sssZ`, or null. A date alone is midnight UTC;
 * a date-time without an offset is read as UTC. Precision beyond milliseconds is dropped.
 */
export function parseInstant(text: string): string | null {
  const match = ISO_8601.exec(text);
  if (match === null) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', , sign, offsetHours = '0', offsetMinutes = '0'] =
    match;
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

function objectWithKeys(raw: unknown, allowed: readonly string[], at: string): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return invalid(at, 'must be an object', raw);
  const unknown = Object.keys(raw).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) return invalid(at, `unknown member ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`, raw);
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

function invalid(at: string, reason: string, given: unknown): never {
  throw new DomainError('BAD_REQUEST', `invalid query filter: ${at}: ${reason}`, { at, reason, given: given ?? null });
}
