import type { Condition, PathSegment, RangeOperator } from '../../../../kernel/records/record-filter.js';
import type { SqlWriter } from './sql-writer.js';
import type { Backend } from '../../../../database/location.js';

/**
 * What the SQL of one database does its own way in the statements of query-translator.ts: how
 * values are bound, how a payload field is read and tested, how text is compared. The translator
 * writes the rest, the same for every dialect; sqlite-dialect.ts and postgresql-dialect.ts each
 * implement the same semantics (the top of query-translator.ts), which the store suite checks.
 */
export interface SqlDialect {
  /** Which database speaks it: also the folder of its migrations (prisma/migrations/<name>/). */
  readonly name: Backend;
  /** The placeholder of the bound value at `position` (from 1), read as `type`. */
  placeholder(position: number, type: ParamType): string;
  /** The bound value an ISO 8601 instant is compared as with the timestamp columns. */
  instant(iso: string): unknown;
  /** The bound value a boolean (a payload sort key) is compared as. */
  boolean(value: boolean): unknown;
  /**
   * Whether NULL sorts before every value ascending (and after every value descending): the
   * database's default, which no ORDER BY of ours overrides. A keyset page's cursor predicate
   * places NULLs the same way (query-translator.ts, keysetBound).
   */
  readonly nullsFirstAscending: boolean;
  /** `expression` compared and sorted in code point order. */
  collated(expression: string): string;
  /** True when the text `needle` occurs in the text `haystack`. */
  substring(haystack: string, needle: string): string;
  /** The payload of the records aliased `r` as JSON text that reads back exactly. */
  readonly payloadText: string;
  /** The elements of `pairs`, a JSON array of `[path, number as text]` (writeNumbers). */
  numberPairs(pairs: string): NumberPairs;
  /** A condition on a payload field, any but a range with a number operand (the translator reads record_numbers for those). */
  payloadCondition(sql: SqlWriter, path: PathSegment[], condition: Condition): string;
  payloadSortKeys(sql: SqlWriter, path: PathSegment[]): JsonSortKeys;
  /** Whether a page in index order is first looked for in a window of the records (Read.window in query-translator.ts). */
  readonly triesIndexOrderWindow: boolean;
}

/** What a bound value is read as; `any`: as the context takes it. */
export type ParamType = 'any' | 'text' | 'integer' | 'double' | 'json' | 'instant' | 'boolean';

/** A FROM item and the two columns of its rows: the path and the number it holds. */
export interface NumberPairs {
  from: string;
  path: string;
  value: string;
}

/** A payload field's sort keys read from the payload (without direction): see payloadSort in query-translator.ts. */
export interface JsonSortKeys {
  /** True when the field is missing or null: those rows go last in either direction. */
  missing: string;
  /** Numbers, strings, booleans, then arrays and objects. */
  rank: string;
  text: string;
  boolean: string;
}

export const COMPARATORS: Record<RangeOperator, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** `$."a"[0]."b"` (SQLite's JSON path and PostgreSQL's jsonpath alike): keys are [A-Za-z0-9_-] (record-filter.ts), so quoting them is enough. */
export function jsonPath(path: PathSegment[]): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : `${text}."${segment}"`), '$');
}
