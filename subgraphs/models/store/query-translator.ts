import { canonicalJson } from '../domain/records/canonical-json.js';
import type { JsonValue } from '../domain/records/canonical-json.js';
import type { Condition, Field, PathSegment, RangeOperator, RecordFilter, SortKey } from '../domain/records/record-filter.js';
import { type ModelVersion, type Principal, recordNamespace } from '../domain/records/record-store.js';
import { type PayloadNumber, numberPath } from './record-numbers.js';

/**
 * Turns a parsed RecordFilter into one parameterised SELECT of the matching records, in order, run
 * by the database: SQLite's JSON functions or PostgreSQL's jsonb. Every value, field path included, is a bound parameter; the SQL
 * text holds only fixed fragments. Both dialects implement the same semantics (DECISIONS section 3
 * "query"), which the store suite checks on both:
 *
 * - a payload field is missing when its path does not resolve (a key on an array, an index on an
 *   object, an index past the end); a present JSON null is not missing;
 * - `eq` is JSON equality without coercion (1 equals 1.0, "1" does not equal 1, objects equal
 *   whatever their key order); `ne` is its negation, true for a missing field;
 * - `contains`: substring when field and value are strings, else some array element equals the value;
 * - ranges compare number with number, string with string (code point order), instant with instant;
 * - sort: numbers before strings before booleans before arrays/objects (each type in its own order),
 *   missing and null values last in either direction, then `created_at, id, namespace` so pages
 *   are stable (tieBreak).
 *
 * On PostgreSQL `eq`, `in` and the array case of `contains` also get a containment test
 * (`payload @> …`), implied by the exact test, that the jsonb_path_ops GIN index answers. The exact
 * test stays even where containment alone would be exact (scalars on a path of keys): it lowers the
 * planner's row estimate, without which an `in` of a few values was planned as a walk of the
 * created_at index that tests containment on every row (290 ms instead of 10 at 100,000). On both
 * dialects, ranges on a payload number and the numeric part of a payload sort read the record's
 * numbers from `record_numbers` (record-numbers.ts, joined once per field), served by its
 * (path, value) index, so that they never decode a payload to find a number.
 */
export type Backend = 'sqlite' | 'postgresql';

export interface SqlStatement {
  sql: string;
  values: unknown[];
}

/** What identifies a stored record: its id within its namespace (record-store.ts, recordNamespace). */
export interface RecordKey {
  id: string;
  namespace: string;
}

/**
 * A row of a query's page or of a record read by key: the record as the database returns it, its payload as JSON text. Text
 * because SQLite keeps a payload that is a bare number as a number, which raw results cannot return
 * as JSON, and because Prisma would otherwise decode, re-encode and decode a jsonb payload.
 */
export interface RecordRow {
  id: string;
  namespace: string;
  model: string;
  version: string;
  payload: string;
  created_by_sub: string;
  tenant_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The page of records a filter selects, in order, as RecordRows: one statement, one round trip.
 * The page is found first (`p`: keys and sort keys, sorted and limited), then joined to the records
 * it names for their columns, so that only the page's payloads are rendered as text: PostgreSQL
 * computes a SELECT list before it sorts, which for every match's payload would take longer than
 * the search (300 payloads instead of 100 for an `in` of 3 values). The join does not keep the
 * page's order: the sort keys, selected in `p`, order the result again (a sort of one page).
 */
export function translateQuery(backend: Backend, filter: RecordFilter, viewer: Principal, within: ModelVersion | null): SqlStatement {
  return pageQuery(new SqlWriter(backend), filter, viewer, within, () => 'records r');
}

/**
 * The same page searched among the first `2 × (offset + limit)` records in the query's order only,
 * or null where that is no shortcut. Exact when it finds a whole page: the window is a prefix of
 * the order, so no record outside it can come before those it holds; otherwise the caller runs
 * translateQuery. For PostgreSQL queries in index order (no sort, or `created_at` only) with
 * payload conditions: PostgreSQL has no statistics for payload fields (ANALYZE skips values over
 * 1 KB, and one assessment is 2), so it plans every payload condition as matching a handful of
 * records and sorts all the matches; a condition that most records meet then grows with the table
 * ("the latest 20 Battery assessments" of 100,000: 600 ms). Read in index order, the window stops
 * after the page; a selective condition fills no page there and costs twice a page's reads more.
 */
export function translateIndexOrderQuery(backend: Backend, filter: RecordFilter, viewer: Principal, within: ModelVersion | null): SqlStatement | null {
  const indexOrder = filter.sort.every(({ field }) => field.kind === 'timestamp' && field.column === 'created_at');
  const payloadCondition = filter.where.some(({ field }) => field.kind === 'payload');
  if (backend !== 'postgresql' || !indexOrder || !payloadCondition || filter.limit === 0) return null;
  return pageQuery(new SqlWriter(backend), filter, viewer, within, (sql) => {
    const scope = within === null ? 'TRUE' : `w.model = ${sql.text(within.model)} AND w.version = ${sql.text(within.version)}`;
    const order = tieBreak(filter.sort, 'w').map(({ expression, direction }) => `${expression} ${direction}`);
    return `(SELECT w.* FROM records w WHERE ${scope} ORDER BY ${order.join(', ')} LIMIT ${sql.integer(2 * (filter.offset + filter.limit))}) r`;
  });
}

/** translateQuery over `source`, the records (or a window of them) as `r`. */
function pageQuery(sql: SqlWriter, filter: RecordFilter, viewer: Principal, within: ModelVersion | null, source: (sql: SqlWriter) => string): SqlStatement {
  const from = source(sql);
  const where = [visibleTo(sql, viewer)];
  if (within !== null) where.push(`r.model = ${sql.text(within.model)} AND r.version = ${sql.text(within.version)}`);
  where.push(...filter.where.map((condition) => conditionSql(sql, condition)));
  const order = [...filter.sort.flatMap((key) => sortSql(sql, key, filter.where)), ...tieBreak(filter.sort)];
  const page =
    `SELECT r.id, r.namespace, ${order.map(({ expression }, i) => `${expression} AS k${i}`).join(', ')}` +
    ` FROM ${from}${sql.joins.join('')}` +
    ` WHERE ${where.map((clause) => `(${clause})`).join(' AND ')}` +
    ` ORDER BY ${order.map(({ expression, direction }) => `${expression} ${direction}`).join(', ')}` +
    ` LIMIT ${sql.integer(filter.limit)} OFFSET ${sql.integer(filter.offset)}`;
  const text =
    `SELECT ${recordColumns(sql.backend)} FROM (${page}) p JOIN records r ON r.id = p.id AND r.namespace = p.namespace` +
    ` ORDER BY ${order.map(({ direction }, i) => `p.k${i} ${direction}`).join(', ')}`;
  return { sql: text, values: sql.values };
}

/** A term of an ORDER BY. */
interface OrderTerm {
  expression: string;
  direction: 'ASC' | 'DESC';
}

/**
 * Ties are broken by `created_at`, then `id`, then `namespace` (two tenants may hold one id), so
 * that pages are stable; all ascending unless the sort names `created_at`, whose direction they
 * then follow (newest first is the exact reverse of the default order). `id` in the column's own
 * collation here, not code point order as in a sort on `id`: the (model, version, created_at, id,
 * namespace) and (created_at, id, namespace) indexes then give the order themselves, and "the
 * latest 20" reads 20 rows however many match. With a code point tie-break PostgreSQL sorted every
 * match whenever it underestimated them (each payload condition is estimated at well under 1% of
 * the rows), which grew with the table.
 */
function tieBreak(sort: SortKey[], records = 'r'): OrderTerm[] {
  const createdAt = sort.find(({ field }) => field.kind === 'timestamp' && field.column === 'created_at');
  const direction = createdAt?.direction === 'desc' ? 'DESC' : 'ASC';
  const keys = createdAt ? ['id', 'namespace'] : ['created_at', 'id', 'namespace'];
  return keys.map((column) => ({ expression: `${records}.${column}`, direction }));
}

/** The record of one key. */
export function selectRecord(backend: Backend, { id, namespace }: RecordKey): SqlStatement {
  const sql = new SqlWriter(backend);
  return recordsWhere(sql, `r.id = ${sql.text(id)} AND r.namespace = ${sql.text(namespace)}`);
}

/**
 * The record with that id that `viewer` may read. Two may be visible when a grant shares another
 * tenant's record with an id the viewer's own tenant also holds: the viewer's own namespace wins,
 * then the first namespace in code point order, so that an id always names the same record.
 */
export function selectVisibleRecord(backend: Backend, id: string, viewer: Principal): SqlStatement {
  const sql = new SqlWriter(backend);
  const own = sql.text(recordNamespace(viewer));
  const { sql: text, values } = recordsWhere(sql, `r.id = ${sql.text(id)} AND (${visibleTo(sql, viewer)})`);
  return { sql: `${text} ORDER BY CASE WHEN r.namespace = ${own} THEN 0 ELSE 1 END, ${sql.collated('r.namespace')} LIMIT 1`, values };
}

function recordsWhere(sql: SqlWriter, where: string): SqlStatement {
  return { sql: `SELECT ${recordColumns(sql.backend)} FROM records r WHERE ${where}`, values: sql.values };
}

/** The columns of a RecordRow, of the records aliased `r`. */
function recordColumns(backend: Backend): string {
  const payload = backend === 'postgresql' ? 'r.payload::text' : SQLITE_PAYLOAD_TEXT;
  return `r.id, r.namespace, r.model, r.version, ${payload} AS payload, r.created_by_sub, r.tenant_id, r.created_at, r.updated_at`;
}

/**
 * Sets a record's payload from its JSON text. For a payload that is a bare number: Prisma writes one
 * rounded to 15 significant digits (0.30000000000000004 became 0.3, and -1.7976931348623157e308 a
 * JSON null), where the JSON text keeps every digit on both backends.
 */
export function writePayload(backend: Backend, { id, namespace }: RecordKey, payload: JsonValue): SqlStatement {
  const sql = new SqlWriter(backend);
  const text = `UPDATE records SET payload = ${sql.json(payload)} WHERE id = ${sql.text(id)} AND namespace = ${sql.text(namespace)}`;
  return { sql: text, values: sql.values };
}

/**
 * A record's payload numbers into record_numbers, in one statement whatever their count, each double
 * exactly: as `[path, text]` pairs of one JSON parameter, the text (JavaScript's shortest form that
 * reads back as the same double) cast by the database. Prisma's createMany wrote some doubles as
 * 16-digit decimals: -1.7976931348623155e308 arrived as an overflow (out of range on PostgreSQL,
 * Infinity refused on SQLite) and failed the create. JSON numbers would not do on SQLite, whose
 * JSON functions read them with 15 digits.
 */
export function writeNumbers(backend: Backend, { id, namespace }: RecordKey, numbers: PayloadNumber[]): SqlStatement {
  const sql = new SqlWriter(backend);
  const pairs = sql.param(JSON.stringify(numbers.map(({ path, value }) => [path, String(value)])), '::jsonb');
  const rows =
    backend === 'postgresql'
      ? `SELECT ${sql.text(id)}, ${sql.text(namespace)}, n.value ->> 0, (n.value ->> 1)::float8 FROM jsonb_array_elements(${pairs}) AS n(value)`
      : `SELECT ${sql.text(id)}, ${sql.text(namespace)}, json_extract(n.value, '$[0]'), CAST(json_extract(n.value, '$[1]') AS REAL) FROM json_each(${pairs}) AS n`;
  return { sql: `INSERT INTO record_numbers (record_id, record_namespace, path, value) ${rows}`, values: sql.values };
}

/** DECISIONS section 4: the owner (within the caller's tenant, if any), or a grant to the caller. */
function visibleTo(sql: SqlWriter, viewer: Principal): string {
  const subject = sql.text(viewer.subject);
  const tenant = viewer.tenant === null ? null : sql.text(viewer.tenant);
  const owner = tenant === null ? `r.created_by_sub = ${subject}` : `r.created_by_sub = ${subject} AND r.tenant_id = ${tenant}`;
  const grantees = [`(g.grantee_kind = 'subject' AND g.grantee = ${subject})`];
  if (tenant !== null) grantees.push(`(g.grantee_kind = 'tenant' AND g.grantee = ${tenant})`);
  return `(${owner}) OR EXISTS (SELECT 1 FROM record_grants g WHERE g.record_id = r.id AND g.record_namespace = r.namespace AND (${grantees.join(' OR ')}))`;
}

function conditionSql(sql: SqlWriter, condition: Condition): string {
  switch (condition.field.kind) {
    case 'text':
      return textCondition(sql, `r.${condition.field.column}`, condition);
    case 'timestamp':
      return timestampCondition(sql, `r.${condition.field.column}`, condition);
    case 'payload':
      if (isNumberRange(condition)) return numberRange(sql, condition.field.path, condition);
      return sql.backend === 'postgresql'
        ? postgresPayloadCondition(sql, condition.field.path, condition)
        : sqlitePayloadCondition(sql, condition.field.path, condition);
  }
}

/** id, model, version: strings, never missing; a value of another type matches nothing. */
function textCondition(sql: SqlWriter, column: string, condition: Condition): string {
  const isText = (value: unknown): value is string => typeof value === 'string';
  switch (condition.op) {
    case 'eq':
      return isText(condition.value) ? `${column} = ${sql.text(condition.value)}` : 'FALSE';
    case 'ne':
      return isText(condition.value) ? `${column} <> ${sql.text(condition.value)}` : 'TRUE';
    case 'in': {
      const texts = condition.values.filter(isText);
      return texts.length > 0 ? `${column} IN (${texts.map((value) => sql.text(value)).join(', ')})` : 'FALSE';
    }
    case 'contains':
      return isText(condition.value) ? sql.substring(column, sql.text(condition.value)) : 'FALSE';
    case 'exists':
      return condition.value ? 'TRUE' : 'FALSE';
    default:
      return isText(condition.value)
        ? `${sql.collated(column)} ${COMPARATORS[condition.op]} ${sql.text(condition.value)}`
        : 'FALSE';
  }
}

/** created_at, updated_at: never missing; operands are ISO instants (record-filter.ts). */
function timestampCondition(sql: SqlWriter, column: string, condition: Condition): string {
  switch (condition.op) {
    case 'eq':
      return `${column} = ${sql.instant(condition.value as string)}`;
    case 'ne':
      return `${column} <> ${sql.instant(condition.value as string)}`;
    case 'in':
      return `${column} IN (${condition.values.map((value) => sql.instant(value as string)).join(', ')})`;
    case 'exists':
      return condition.value ? 'TRUE' : 'FALSE';
    case 'contains':
      throw new Error('contains on a timestamp is rejected by parseRecordFilter');
    default:
      return `${column} ${COMPARATORS[condition.op]} ${sql.instant(condition.value as string)}`;
  }
}

const COMPARATORS: Record<RangeOperator, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

// PostgreSQL ------------------------------------------------------------------------------------

/**
 * The value at a payload path, NULL where the path does not resolve. `->` with a key yields NULL on
 * anything but an object, so a path of keys is a chain of them. An index yields NULL on an object
 * but not on a scalar (PostgreSQL reads `'5'::jsonb -> 0` as 5), so a path with an index is a strict
 * jsonpath, which resolves nothing there (its error silenced into NULL).
 */
function postgresValue(sql: SqlWriter, path: PathSegment[]): string {
  if (path.some((segment) => typeof segment === 'number')) {
    return `jsonb_path_query_first(r.payload, ${sql.param(`strict ${jsonPath(path)}`, '::jsonpath')}, '{}', TRUE)`;
  }
  return path.reduce<string>((expression, segment) => `${expression} -> ${sql.text(segment as string)}`, 'r.payload');
}

function postgresPayloadCondition(sql: SqlWriter, path: PathSegment[], condition: Condition): string {
  const value = postgresValue(sql, path);
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
      const substring = sql.substring(`(${value} #>> '{}')`, sql.text(condition.value));
      return `CASE ${type} WHEN 'string' THEN ${substring} WHEN 'array' THEN ${element} ELSE FALSE END`;
    }
    case 'exists':
      return condition.value ? `${value} IS NOT NULL` : `${value} IS NULL`;
    default: // a string range (numbers: numberRange)
      return `CASE WHEN ${type} = 'string' THEN (${value} #>> '{}') COLLATE "C" ${COMPARATORS[condition.op]} ${sql.text(condition.value as string)} ELSE FALSE END`;
  }
}

/** `payload @> {"a":[{"b":value}]}` for path a[0].b: true whenever the field equals `value`. */
function containing(sql: SqlWriter, path: PathSegment[], value: JsonValue): string {
  const document = path.reduceRight<JsonValue>(
    (inner, segment) => (typeof segment === 'number' ? [inner] : { [segment]: inner }),
    value,
  );
  return `r.payload @> ${sql.json(document)}`;
}

function postgresSortKeys(sql: SqlWriter, path: PathSegment[]): JsonSortKeys {
  const value = postgresValue(sql, path);
  const type = `jsonb_typeof(${value})`;
  return {
    missing: `(${value} IS NULL OR ${type} = 'null')`,
    rank: `CASE ${type} WHEN 'number' THEN 0 WHEN 'string' THEN 1 WHEN 'boolean' THEN 2 ELSE 3 END`,
    text: `CASE WHEN ${type} = 'string' THEN ${value} #>> '{}' END`,
    boolean: `CASE WHEN ${type} = 'boolean' THEN (${value})::boolean END`,
  };
}

// SQLite ----------------------------------------------------------------------------------------

/**
 * The payload as JSON text. The column's declared type (JSONB) has numeric affinity, so SQLite keeps
 * a payload that is a bare number as a number, on which the JSON functions fail; every path has a
 * key, so such a payload never has the field anyway.
 */
const SQLITE_DOCUMENT = 'CAST(r.payload AS TEXT)';

/**
 * The payload as JSON text that reads back exactly: SQLite renders a REAL as text with 15
 * significant digits (0.30000000000000004 became 0.3, -1.7976931348623157e308 overflowed to
 * -Infinity), where 17 always round-trip a double.
 */
const SQLITE_PAYLOAD_TEXT = `CASE typeof(r.payload) WHEN 'real' THEN printf('%!.17g', r.payload) ELSE ${SQLITE_DOCUMENT} END`;

/** `$."a"[0]."b"` (SQLite's JSON path and PostgreSQL's jsonpath alike): keys are [A-Za-z0-9_-] (record-filter.ts), so quoting them is enough. */
function jsonPath(path: PathSegment[]): string {
  return path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : `${text}."${segment}"`), '$');
}

function sqlitePayloadCondition(sql: SqlWriter, path: PathSegment[], condition: Condition): string {
  const pathText = sql.text(jsonPath(path));
  const type = `json_type(${SQLITE_DOCUMENT}, ${pathText})`;
  const value = `json_extract(${SQLITE_DOCUMENT}, ${pathText})`;
  switch (condition.op) {
    case 'eq':
      return sqliteEquals(sql, type, value, condition.value);
    case 'ne':
      return `NOT COALESCE(${sqliteEquals(sql, type, value, condition.value)}, FALSE)`;
    case 'in':
      return condition.values.map((item) => sqliteEquals(sql, type, value, item)).join(' OR ');
    case 'contains': {
      const element = `(${type} = 'array' AND EXISTS (SELECT 1 FROM json_each(${SQLITE_DOCUMENT}, ${pathText}) AS element WHERE ${sqliteEquals(sql, 'element.type', 'element.value', condition.value)}))`;
      if (typeof condition.value !== 'string') return element;
      return `(${type} = 'text' AND ${sql.substring(value, sql.text(condition.value))}) OR ${element}`;
    }
    case 'exists':
      return condition.value ? `${type} IS NOT NULL` : `${type} IS NULL`;
    default: // a string range (numbers: numberRange)
      return `${type} = 'text' AND ${value} ${COMPARATORS[condition.op]} ${sql.text(condition.value as string)}`;
  }
}

/**
 * JSON equality from json_type/json_extract (or json_each's type/value): booleans come out as 1/0
 * and must be told apart by type; objects and arrays come out as their stored text, which is
 * canonical JSON (canonical-json.ts), so equal values have equal texts.
 */
function sqliteEquals(sql: SqlWriter, type: string, value: string, expected: JsonValue): string {
  if (expected === null) return `(${type} = 'null')`;
  if (typeof expected === 'boolean') return `(${type} = '${expected}')`;
  if (typeof expected === 'number') return `(${type} IN ('integer', 'real') AND ${value} = ${sql.param(expected)})`;
  if (typeof expected === 'string') return `(${type} = 'text' AND ${value} = ${sql.text(expected)})`;
  const kind = Array.isArray(expected) ? 'array' : 'object';
  return `(${type} = '${kind}' AND ${value} = ${sql.text(canonicalJson(expected))})`;
}

function sqliteSortKeys(sql: SqlWriter, path: PathSegment[]): JsonSortKeys {
  const pathText = sql.text(jsonPath(path));
  const type = `json_type(${SQLITE_DOCUMENT}, ${pathText})`;
  const value = `json_extract(${SQLITE_DOCUMENT}, ${pathText})`;
  return {
    missing: `(${type} IS NULL OR ${type} = 'null')`,
    rank: `CASE ${type} WHEN 'integer' THEN 0 WHEN 'real' THEN 0 WHEN 'text' THEN 1 WHEN 'true' THEN 2 WHEN 'false' THEN 2 ELSE 3 END`,
    text: `CASE WHEN ${type} = 'text' THEN ${value} END`,
    boolean: `CASE ${type} WHEN 'false' THEN 0 WHEN 'true' THEN 1 END`,
  };
}

// Both ------------------------------------------------------------------------------------------

/** A payload field's sort keys read from the payload (without direction): see payloadSort. */
interface JsonSortKeys {
  /** True when the field is missing or null: those rows go last in either direction. */
  missing: string;
  /** Numbers, strings, booleans, then arrays and objects. */
  rank: string;
  text: string;
  boolean: string;
}

type NumberRange = { op: RangeOperator; value: number };

function isNumberRange(condition: Condition): condition is Condition & NumberRange {
  return condition.op in COMPARATORS && typeof (condition as { value?: unknown }).value === 'number';
}

/** A range on a payload number: the field's row in record_numbers (absent unless it is a number). */
function numberRange(sql: SqlWriter, path: PathSegment[], { op, value }: NumberRange): string {
  return `${sql.numbers(path)}.value ${COMPARATORS[op]} ${sql.param(value, '::float8')}`;
}

/**
 * A payload field's sort keys. Its number comes from record_numbers and the payload is read only
 * for rows whose field is not a number (CASE stops at its first true branch), so sorting numbers
 * decodes no payload. When a range condition keeps numbers only, the value alone orders them, and
 * the (path, value) index can hand rows over already in order.
 */
function payloadSort(sql: SqlWriter, path: PathSegment[], direction: OrderTerm['direction'], where: Condition[]): OrderTerm[] {
  const number = `${sql.numbers(path)}.value`;
  if (where.some((condition) => keepsNumbersOnly(condition, path))) return [{ expression: number, direction }];
  const json = sql.backend === 'postgresql' ? postgresSortKeys(sql, path) : sqliteSortKeys(sql, path);
  const unlessNumber = (expression: string, whenNumber: string) => `CASE WHEN ${number} IS NOT NULL THEN ${whenNumber} ELSE ${expression} END`;
  return [
    { expression: unlessNumber(json.missing, 'FALSE'), direction: 'ASC' },
    { expression: unlessNumber(json.rank, '0'), direction },
    { expression: number, direction },
    { expression: sql.collated(unlessNumber(json.text, 'NULL')), direction },
    { expression: unlessNumber(json.boolean, 'NULL'), direction },
  ];
}

function keepsNumbersOnly(condition: Condition, path: PathSegment[]): boolean {
  return condition.field.kind === 'payload' && isNumberRange(condition) && numberPath(condition.field.path) === numberPath(path);
}

function sortSql(sql: SqlWriter, key: SortKey, where: Condition[]): OrderTerm[] {
  const direction = key.direction === 'asc' ? 'ASC' : 'DESC';
  const field: Field = key.field;
  switch (field.kind) {
    case 'text':
      return [{ expression: sql.collated(`r.${field.column}`), direction }];
    case 'timestamp':
      return [{ expression: `r.${field.column}`, direction }];
    case 'payload':
      return payloadSort(sql, field.path, direction, where);
  }
}

/** Collects bound values and writes the dialect's placeholders, casts and text functions. */
class SqlWriter {
  readonly values: unknown[] = [];
  /** `LEFT JOIN record_numbers …`, one per payload field whose numbers the query reads. */
  readonly joins: string[] = [];
  private readonly numberAliases = new Map<string, string>();

  constructor(readonly backend: Backend) {}

  /**
   * A bound value, numbered so that a placeholder may appear more than once (`$1` on PostgreSQL,
   * with the cast that fixes its type, `?1` on SQLite).
   */
  param(value: unknown, postgresCast = ''): string {
    this.values.push(value);
    return this.backend === 'postgresql' ? `$${this.values.length}${postgresCast}` : `?${this.values.length}`;
  }

  text(value: string): string {
    return this.param(value, '::text');
  }

  /** SQLite wants LIMIT/OFFSET integers, and a JS number may reach it as a REAL. */
  integer(value: number): string {
    const placeholder = this.param(value, '::bigint');
    return this.backend === 'postgresql' ? placeholder : `CAST(${placeholder} AS INTEGER)`;
  }

  json(value: JsonValue): string {
    return this.param(JSON.stringify(value), '::jsonb');
  }

  /** SQLite keeps timestamps as epoch milliseconds, PostgreSQL as timestamptz. */
  instant(iso: string): string {
    return this.backend === 'postgresql' ? this.param(iso, '::timestamptz') : this.param(Date.parse(iso));
  }

  /** Code point order: SQLite's default BINARY collation; PostgreSQL's database collation may differ. */
  collated(expression: string): string {
    return this.backend === 'postgresql' ? `${expression} COLLATE "C"` : expression;
  }

  /** The alias of the record_numbers row of one payload field, joined on first use. */
  numbers(path: PathSegment[]): string {
    const field = numberPath(path);
    let alias = this.numberAliases.get(field);
    if (alias === undefined) {
      alias = `n${this.numberAliases.size + 1}`;
      this.numberAliases.set(field, alias);
      this.joins.push(
        ` LEFT JOIN record_numbers ${alias} ON ${alias}.record_id = r.id AND ${alias}.record_namespace = r.namespace AND ${alias}.path = ${this.text(field)}`,
      );
    }
    return alias;
  }

  substring(haystack: string, needle: string): string {
    return this.backend === 'postgresql' ? `strpos(${haystack}, ${needle}) > 0` : `instr(${haystack}, ${needle}) > 0`;
  }
}
