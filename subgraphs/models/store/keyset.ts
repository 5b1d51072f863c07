import { createHash } from 'node:crypto';
import { DomainError } from '../../../kernel/errors.js';
import type { SortKey } from '../../../kernel/records/record-filter.js';
import { unstorable } from '../../../kernel/records/storable-json.js';
import type { SqlDialect } from './sql/sql-dialect.js';
import { SqlWriter, allOf } from './sql/sql-writer.js';
import type { Slice, SqlStatement } from './query-translator.js';

/**
 * Keyset pages (docs/STORE.md "Keyset pages"), all of them: the cursor of a row, and the predicate
 * of the rows beyond one, which query-translator.ts adds to a page's statement (translateRead).
 *
 * The cursor of a keyset page: the values of every ORDER BY key of its row, so that the next page
 * starts right after that row whatever was inserted or deleted since. Opaque to clients: base64url
 * of the JSON array `[fingerprint, value…]`, the fingerprint naming the query (filter, model
 * version and order) it belongs to. A cursor of another query (or a forged one) is 400
 * BAD_REQUEST, never an SQL error or a page of the wrong records. Not secret, and need not be: every key is one the reader can see or learn by filtering (payload fields, created_at, id), or
 * the record's random tie_break, which means nothing (query-translator.ts, tieBreak).
 */

/** What an ORDER BY key's value is: how a cursor holds it and a statement binds it again. */
export type KeyKind = 'text' | 'instant' | 'double' | 'integer' | 'boolean';

/** A key of an order as a cursor sees it. */
export interface KeyShape {
  kind: KeyKind;
  /** Whether the key can be NULL (a payload sort key of another JSON type). */
  nullable: boolean;
}

/** An order: its keys, and a fingerprint of the query, its sort and those keys. */
export interface OrderShape {
  fingerprint: string;
  keys: KeyShape[];
}

/** A key's value in a cursor: instants as ISO 8601 UTC with milliseconds. */
export type KeyValue = string | number | boolean | null;

/** Where a cursor was given, as the error details name it. */
export type CursorArgument = 'after' | 'before';

/**
 * The fingerprint covers the query's conditions and model version, the sort as written and the keys
 * it became (a range on the sorted number field orders by the number alone: one key instead of
 * five), so a cursor decodes only where its values mean the same keys of the same list: one from
 * another filter is refused as README says, rather than starting a page at a position of another list.
 */
export function orderShape(query: { where: unknown; within: unknown; sort: SortKey[] }, keys: Array<KeyShape & { direction: string }>): OrderShape {
  const described = JSON.stringify([query.where, query.within, query.sort, keys.map(({ kind, nullable, direction }) => [kind, nullable, direction])]);
  return { fingerprint: createHash('sha256').update(described).digest('base64url').slice(0, 12), keys: keys.map(({ kind, nullable }) => ({ kind, nullable })) };
}

/** The cursor of a row whose keys the database returned as `values` (drivers differ: see keyValue). */
export function encodeCursor(order: OrderShape, values: unknown[]): string {
  const keys = order.keys.map((key, index) => keyValue(key.kind, values[index]));
  return Buffer.from(JSON.stringify([order.fingerprint, ...keys])).toString('base64url');
}

/** The key values a cursor holds, checked against `order`; else 400 naming the argument. */
export function decodeCursor(cursor: string, at: CursorArgument, order: OrderShape): KeyValue[] {
  const refuse = (reason: string): never => {
    throw new DomainError('BAD_REQUEST', `invalid cursor: ${at}: ${reason}`, { at, reason });
  };
  const decoded = parsed(cursor) ?? refuse('not a cursor of this service');
  const [fingerprint, ...values] = decoded;
  if (fingerprint !== order.fingerprint) refuse('the cursor belongs to another filter or order (orderBy) of the records');
  if (values.length !== order.keys.length) refuse('not a cursor of this service');
  values.forEach((value, index) => {
    const problem = valueProblem(order.keys[index]!, value);
    if (problem !== null) refuse(problem);
  });
  return values as KeyValue[];
}

/** The JSON array a cursor encodes, or null. */
function parsed(cursor: string): unknown[] | null {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Why `value` cannot be a value of `key`, or null when it can. */
function valueProblem(key: KeyShape, value: unknown): string | null {
  if (value === null) return key.nullable ? null : 'a key value is missing';
  switch (key.kind) {
    case 'text':
      // What the stores could not hold would fail in SQL on PostgreSQL only (storable-json.ts).
      return typeof value === 'string' && unstorable(value) === null ? null : 'a text key is not a storable string';
    case 'instant':
      return isInstant(value) ? null : 'a timestamp key is not an ISO 8601 instant';
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'a number key is not a finite number';
    case 'integer':
      return Number.isSafeInteger(value) ? null : 'an integer key is not an integer';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'a boolean key is not a boolean';
  }
}

/** An instant as encodeCursor writes one, of the years 0001 to 9999 (which both backends read). */
function isInstant(value: unknown): boolean {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value) || value.startsWith('0000')) return false;
  const time = Date.parse(value);
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

/**
 * A key's value as the database returned it, in the cursor's form: node-postgres returns
 * timestamptz as a Date, SQLite an instant as epoch milliseconds (or a Date, through Prisma) and a
 * boolean as 0 or 1, and an integer may come as a bigint.
 */
function keyValue(kind: KeyKind, value: unknown): KeyValue {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'instant':
      return new Date(value instanceof Date || typeof value === 'string' ? value : Number(value)).toISOString();
    case 'integer':
    case 'double':
      return Number(value);
    case 'boolean':
      return Boolean(Number(value));
    case 'text':
      return String(value);
  }
}

/** A term of an ORDER BY, and what a cursor holds of it. */
export interface OrderTerm extends KeyShape {
  expression: string;
  direction: 'ASC' | 'DESC';
}

/** The cursors' predicates (keysetBound). */
export function cursorBounds(sql: SqlWriter, order: OrderTerm[], shape: OrderShape, slice: Slice): string[] {
  const sides = (['after', 'before'] as const).filter((side) => slice[side] !== null);
  return sides.map((side) => keysetBound(sql, order, decodeCursor(slice[side]!, side, shape), side));
}

/**
 * keysetBound over any keys, as a condition of its own: the store suite checks it against each
 * database's own ORDER BY on nullable keys in every direction (a payload sort's nullable keys are
 * NULL only where an earlier key, its type rank, already decides).
 */
export function translateKeyset(dialect: SqlDialect, order: OrderTerm[], cursor: KeyValue[], side: CursorArgument): SqlStatement {
  const sql = new SqlWriter(dialect);
  return { sql: keysetBound(sql, order, cursor, side), values: sql.values };
}

/** A key with its cursor value bound (null: the cursor's value is NULL), and whether "beyond the cursor" means greater. */
interface BoundKey {
  term: OrderTerm;
  value: string | null;
  greater: boolean;
}

/**
 * The rows strictly after (or before) a cursor's row in the order: the lexicographic comparison of
 * the keys, each in its direction, (k1 > c1) OR (k1 = c1 AND k2 > c2) OR …, NULLs where the ORDER
 * BY puts them (SqlDialect.nullsFirstAscending). Written by halves (beyond), so that n keys make a
 * predicate of size n log n and depth log n. The leading run of keys that are never NULL and share
 * the first one's direction is also a row comparison, `(k1, k2) >= (c1, c2)`, which an index on
 * them serves as a range: a page in the default order or by `created_at` starts reading at the
 * cursor, whatever page it is. When that run is the whole order (those two orders), it is the
 * whole predicate, strict.
 */
function keysetBound(sql: SqlWriter, order: OrderTerm[], cursor: KeyValue[], side: CursorArgument): string {
  const keys = order.map((term, i): BoundKey => ({ term, value: bindKey(sql, term.kind, cursor[i]!), greater: (term.direction === 'ASC') === (side === 'after') }));
  const run = keys.slice(0, leadingRun(keys));
  if (run.length === 0) return beyond(sql.dialect, keys);
  const row = (operator: string) => `(${run.map(({ term }) => term.expression).join(', ')}) ${operator} (${run.map(({ value }) => value).join(', ')})`;
  const greater = run[0]!.greater;
  if (run.length === keys.length) return row(greater ? '>' : '<');
  return `${row(greater ? '>=' : '<=')} AND (${beyond(sql.dialect, keys)})`;
}

function leadingRun(keys: BoundKey[]): number {
  const ends = keys.findIndex(({ term }) => term.nullable || term.direction !== keys[0]!.term.direction);
  return ends < 0 ? keys.length : ends;
}

/** Rows beyond the cursor on `keys`: beyond it on the first half, or equal there and beyond on the second. */
function beyond(dialect: SqlDialect, keys: BoundKey[]): string {
  if (keys.length === 1) return beyondKey(dialect, keys[0]!);
  const half = Math.ceil(keys.length / 2);
  const first = keys.slice(0, half);
  const rest = allOfKnown([...first.map(equalKey), beyond(dialect, keys.slice(half))]);
  return anyOfKnown([beyond(dialect, first), rest]);
}

/** One key beyond the cursor's value. NULLs are all equal, and beyond every value or before every one. */
function beyondKey(dialect: SqlDialect, { term, value, greater }: BoundKey): string {
  const key = `(${term.expression})`;
  const nullsBeyond = dialect.nullsFirstAscending !== greater;
  if (value === null) return nullsBeyond ? 'FALSE' : `${key} IS NOT NULL`;
  const compared = `${key} ${greater ? '>' : '<'} ${value}`;
  return term.nullable && nullsBeyond ? `${compared} OR ${key} IS NULL` : compared;
}

function equalKey({ term, value }: BoundKey): string {
  return value === null ? `(${term.expression}) IS NULL` : `(${term.expression}) = ${value}`;
}

/** AND of clauses, FALSE when one of them is. */
function allOfKnown(clauses: string[]): string {
  return clauses.includes('FALSE') ? 'FALSE' : allOf(clauses);
}

/** OR of clauses, without those that are FALSE. */
function anyOfKnown(clauses: string[]): string {
  const possible = clauses.filter((clause) => clause !== 'FALSE');
  return possible.length === 0 ? 'FALSE' : possible.map((clause) => `(${clause})`).join(' OR ');
}

/** A cursor's value bound as its key's kind, or null for NULL (never bound: IS NULL tests it). */
function bindKey(sql: SqlWriter, kind: KeyKind, value: KeyValue): string | null {
  if (value === null) return null;
  switch (kind) {
    case 'text':
      return sql.text(value as string);
    case 'instant':
      return sql.instant(value as string);
    case 'double':
      return sql.double(value as number);
    case 'integer':
      return sql.integer(value as number);
    case 'boolean':
      return sql.boolean(value as boolean);
  }
}
