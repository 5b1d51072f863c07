import { canonicalJson } from '../../../../kernel/records/canonical-json.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import type { Condition, PathSegment } from '../../../../kernel/records/record-filter.js';
import { COMPARATORS, type JsonSortKeys, type SqlDialect, jsonPath } from './sql-dialect.js';
import type { SqlWriter } from './sql-writer.js';

/**
 * The payload as JSON text. The column's declared type (JSONB) has numeric affinity, so SQLite keeps
 * a payload that is a bare number as a number, on which the JSON functions fail; every path has a
 * key, so such a payload never has the field anyway.
 */
const DOCUMENT = 'CAST(r.payload AS TEXT)';

/**
 * SQLite: payloads are canonical JSON text (canonical-json.ts), timestamps epoch milliseconds, text
 * compares in code point order (the BINARY collation). It has no containment index: payload
 * conditions scan the JSON of the records in `created_at` order.
 */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  // LIMIT and OFFSET want integers, and a JavaScript number may reach SQLite as a REAL.
  placeholder: (position, type) => (type === 'integer' ? `CAST(?${position} AS INTEGER)` : `?${position}`),
  instant: (iso) => Date.parse(iso),
  // SQLite has no boolean: its comparisons and json_type tests yield 1 and 0.
  boolean: (value) => (value ? 1 : 0),
  // NULL is less than every value.
  nullsFirstAscending: true,
  collated: (expression) => expression,
  substring,
  // SQLite renders a REAL as text with 15 significant digits (0.30000000000000004 became 0.3,
  // -1.7976931348623157e308 overflowed to -Infinity), where 17 always round-trip a double.
  payloadText: `CASE typeof(r.payload) WHEN 'real' THEN printf('%!.17g', r.payload) ELSE ${DOCUMENT} END`,
  numberPairs: (pairs) => ({ from: `json_each(${pairs}) AS n`, path: "json_extract(n.value, '$[0]')", value: "CAST(json_extract(n.value, '$[1]') AS REAL)" }),
  payloadCondition,
  payloadSortKeys,
  // Payload conditions already scan in created_at order, the planner's walk stops after the page.
  triesIndexOrderWindow: false,
};

function substring(haystack: string, needle: string): string {
  return `instr(${haystack}, ${needle}) > 0`;
}

/** The JSON path of a payload field and its json_type and json_extract (NULL where it does not resolve). */
function fieldAt(sql: SqlWriter, path: PathSegment[]): { pathText: string; type: string; value: string } {
  const pathText = sql.text(jsonPath(path));
  return { pathText, type: `json_type(${DOCUMENT}, ${pathText})`, value: `json_extract(${DOCUMENT}, ${pathText})` };
}

function payloadCondition(sql: SqlWriter, path: PathSegment[], condition: Condition): string {
  const { pathText, type, value } = fieldAt(sql, path);
  switch (condition.op) {
    case 'eq':
      return equals(sql, type, value, condition.value);
    case 'ne':
      return `NOT COALESCE(${equals(sql, type, value, condition.value)}, FALSE)`;
    case 'in':
      return condition.values.map((item) => equals(sql, type, value, item)).join(' OR ');
    case 'contains': {
      const element = `(${type} = 'array' AND EXISTS (SELECT 1 FROM json_each(${DOCUMENT}, ${pathText}) AS element WHERE ${equals(sql, 'element.type', 'element.value', condition.value)}))`;
      if (typeof condition.value !== 'string') return element;
      return `(${type} = 'text' AND ${substring(value, sql.text(condition.value))}) OR ${element}`;
    }
    case 'exists':
      return condition.value ? `${type} IS NOT NULL` : `${type} IS NULL`;
    default: // a string range (numbers: numberRange in query-translator.ts)
      return `${type} = 'text' AND ${value} ${COMPARATORS[condition.op]} ${sql.text(condition.value as string)}`;
  }
}

/**
 * JSON equality from json_type/json_extract (or json_each's type/value): booleans come out as 1/0
 * and must be told apart by type; objects and arrays come out as their stored text, which is
 * canonical JSON (canonical-json.ts), so equal values have equal texts.
 */
function equals(sql: SqlWriter, type: string, value: string, expected: JsonValue): string {
  if (expected === null) return `(${type} = 'null')`;
  if (typeof expected === 'boolean') return `(${type} = '${expected}')`;
  if (typeof expected === 'number') return `(${type} IN ('integer', 'real') AND ${value} = ${sql.param(expected)})`;
  if (typeof expected === 'string') return `(${type} = 'text' AND ${value} = ${sql.text(expected)})`;
  const kind = Array.isArray(expected) ? 'array' : 'object';
  return `(${type} = '${kind}' AND ${value} = ${sql.text(canonicalJson(expected))})`;
}

function payloadSortKeys(sql: SqlWriter, path: PathSegment[]): JsonSortKeys {
  const { type, value } = fieldAt(sql, path);
  return {
    missing: `(${type} IS NULL OR ${type} = 'null')`,
    rank: `CASE ${type} WHEN 'integer' THEN 0 WHEN 'real' THEN 0 WHEN 'text' THEN 1 WHEN 'true' THEN 2 WHEN 'false' THEN 2 ELSE 3 END`,
    text: `CASE WHEN ${type} = 'text' THEN ${value} END`,
    boolean: `CASE ${type} WHEN 'false' THEN 0 WHEN 'true' THEN 1 END`,
  };
}
