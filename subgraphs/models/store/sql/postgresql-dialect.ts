import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import type { Condition, PathSegment } from '../../../../kernel/records/record-filter.js';
import { COMPARATORS, type JsonSortKeys, type ParamType, type SqlDialect, jsonPath } from './sql-dialect.js';
import type { SqlWriter } from './sql-writer.js';

/**
 * PostgreSQL: payloads are jsonb, timestamps timestamptz. `eq`, `in` and the array case of
 * `contains` also get a containment test (`payload @> …`), implied by the exact test, that the
 * jsonb_path_ops GIN index answers. The exact test stays even where containment alone would be
 * exact (scalars on a path of keys): it lowers the planner's row estimate, without which an `in` of
 * a few values was planned as a walk of the created_at index that tests containment on every row
 * (290 ms instead of 10 at 100,000).
 */
export const postgresqlDialect: SqlDialect = {
  name: 'postgresql',
  placeholder: (position, type) => `$${position}${CASTS[type]}`,
  instant: (iso) => iso,
  boolean: (value) => value,
  // NULLS LAST ascending, NULLS FIRST descending: NULL is greater than every value.
  nullsFirstAscending: false,
  // The database's collation may differ from code point order.
  collated: (expression) => `${expression} COLLATE "C"`,
  substring,
  payloadText: 'r.payload::text',
  numberPairs: (pairs) => ({ from: `jsonb_array_elements(${pairs}) AS n(value)`, path: 'n.value ->> 0', value: '(n.value ->> 1)::float8' }),
  payloadCondition,
  payloadSortKeys,
  // No statistics for payload fields (ANALYZE skips values over 1 KB, and one assessment is 2):
  // every payload condition is planned as matching a handful of records, and all matches sorted.
  triesIndexOrderWindow: true,
};

/** Each placeholder's type, which PostgreSQL would otherwise infer from its first use. */
const CASTS: Record<ParamType, string> = {
  any: '',
  text: '::text',
  integer: '::bigint',
  double: '::float8',
  json: '::jsonb',
  instant: '::timestamptz',
  boolean: '::boolean',
};

function substring(haystack: string, needle: string): string {
  return `strpos(${haystack}, ${needle}) > 0`;
}

/**
 * The value at a payload path, NULL where the path does not resolve. `->` with a key yields NULL on
 * anything but an object, so a path of keys is a chain of them. An index yields NULL on an object
 * but not on a scalar (PostgreSQL reads `'5'::jsonb -> 0` as 5), so a path with an index is a strict
 * jsonpath, which resolves nothing there (its error silenced into NULL).
 */
function valueAt(sql: SqlWriter, path: PathSegment[]): string {
  if (path.some((segment) => typeof segment === 'number')) {
    return `jsonb_path_query_first(r.payload, ${sql.param(`strict ${jsonPath(path)}`)}::jsonpath, '{}', TRUE)`;
  }
  return path.reduce<string>((expression, segment) => `${expression} -> ${sql.text(segment as string)}`, 'r.payload');
}

function payloadCondition(sql: SqlWriter, path: PathSegment[], condition: Condition): string {
  const value = valueAt(sql, path);
  const type = `jsonb_typeof(${value})`;
  switch (condition.op) {
    case 'eq':
      return `${containing(sql, path, condition.value)} AND ${value} = ${sql.json(condition.value)}`;
    case 'ne':
      return `NOT COALESCE(${value} = ${sql.json(condition.value)}, FALSE)`;
    case 'in': {
      const prefilter = condition.values.map((item) => containing(sql, path, item)).join(' OR ');
      return `(${prefilter}) AND ${value} IN (${condition.values.map((item) => sql.json(item)).join(', ')})`;
    }
    case 'contains': {
      const element = `EXISTS (SELECT 1 FROM jsonb_array_elements(${value}) AS element(value) WHERE element.value = ${sql.json(condition.value)})`;
      if (typeof condition.value !== 'string') {
        return `${containing(sql, path, [condition.value])} AND CASE WHEN ${type} = 'array' THEN ${element} ELSE FALSE END`;
      }
      const text = substring(`(${value} #>> '{}')`, sql.text(condition.value));
      return `CASE ${type} WHEN 'string' THEN ${text} WHEN 'array' THEN ${element} ELSE FALSE END`;
    }
    case 'exists':
      return condition.value ? `${value} IS NOT NULL` : `${value} IS NULL`;
    default: // a string range (numbers: numberRange in query-translator.ts)
      return `CASE WHEN ${type} = 'string' THEN (${value} #>> '{}') COLLATE "C" ${COMPARATORS[condition.op]} ${sql.text(condition.value as string)} ELSE FALSE END`;
  }
}

/** `payload @> {"a":[{"b":value}]}` for path a[0].b: true whenever the field equals `value`. */
function containing(sql: SqlWriter, path: PathSegment[], value: JsonValue): string {
  const document = path.reduceRight<JsonValue>((inner, segment) => (typeof segment === 'number' ? [inner] : { [segment]: inner }), value);
  return `r.payload @> ${sql.json(document)}`;
}

function payloadSortKeys(sql: SqlWriter, path: PathSegment[]): JsonSortKeys {
  const value = valueAt(sql, path);
  const type = `jsonb_typeof(${value})`;
  return {
    missing: `(${value} IS NULL OR ${type} = 'null')`,
    rank: `CASE ${type} WHEN 'number' THEN 0 WHEN 'string' THEN 1 WHEN 'boolean' THEN 2 ELSE 3 END`,
    text: `CASE WHEN ${type} = 'string' THEN ${value} #>> '{}' END`,
    boolean: `CASE WHEN ${type} = 'boolean' THEN (${value})::boolean END`,
  };
}
