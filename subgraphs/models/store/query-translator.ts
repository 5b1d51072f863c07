import type { Condition, Field, PathSegment, RangeOperator, RecordFilter, SortKey } from '../../../kernel/records/record-filter.js';
import { type Grantee, type IdempotencyClaim, type ModelVersion, type Principal, type RecordQuery, type StorableRecord, recordNamespace } from '../domain/records/record-store.js';
import { type KeyKind, type OrderShape, type OrderTerm, cursorBounds, orderShape } from './keyset.js';
import { type PayloadNumber, numberPath } from '../domain/records/record-numbers.js';
import { COMPARATORS, type SqlDialect } from './sql/sql-dialect.js';
import { SqlWriter, allOf } from './sql/sql-writer.js';

/**
 * Turns a parsed RecordFilter into one parameterised SELECT of the matching records, in order, run
 * by the database. Every value, field path included, is a bound parameter; the SQL text holds only
 * fixed fragments. This module writes the statement's skeleton, the same for every backend; what
 * a database does its own way (binding, reading and testing a payload field, collation) is its
 * dialect's (sql/sqlite-dialect.ts: SQLite's JSON functions, sql/postgresql-dialect.ts: jsonb).
 * Both implement the same semantics (DECISIONS section 3 "query"), which the store suite checks on
 * both:
 *
 * - a payload field is missing when its path does not resolve (a key on an array, an index on an
 *   object, an index past the end); a present JSON null is not missing;
 * - `eq` is JSON equality without coercion (1 equals 1.0, "1" does not equal 1, objects equal
 *   whatever their key order); `ne` is its negation, true for a missing field;
 * - `contains`: substring when field and value are strings, else some array element equals the value;
 * - ranges compare number with number, string with string (code point order), instant with instant;
 * - sort: numbers before strings before booleans before arrays/objects (each type in its own order),
 *   missing and null values last in either direction, then `created_at, id, tie_break` so pages
 *   are stable (tieBreak).
 *
 * On every backend, ranges on a payload number and the numeric part of a payload sort read the
 * record's numbers from `record_numbers` (record-numbers.ts, joined once per field), served by its
 * (path, value) index, so that they never decode a payload to find a number.
 *
 * Pages are keyset pages (translateRead): a cursor (keyset.ts) holds the value of every ORDER
 * BY key of its row, and the next page is the rows beyond those values (keysetBound), compared as
 * the ORDER BY compares them, NULLs included; no OFFSET, so a late page reads what the first does.
 */

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
 * A row of a page read within the payload characters left (Slice.payloadsLeft): its payload's
 * length too. Its payload is then null when the page's reach past them, or when it is the
 * look-ahead row; neither is ever parsed (the charge breaches first, the look-ahead is dropped).
 */
export interface BudgetedRow extends RecordRow {
  payload_chars?: number;
}

/** The ORDER BY keys of a row as a page selects them (`k0`, `k1`, …): what its cursor holds. */
export type KeyColumns = { [column: `k${number}`]: unknown };

/** A row's ORDER BY keys, in order. */
export function rowKeys(row: KeyColumns, count: number): unknown[] {
  return Array.from({ length: count }, (_, index) => row[`k${index}`]);
}

/** Which rows of a query a statement reads. */
export interface Slice {
  /** Rows read at most, and rows skipped first, in reading order. */
  limit: number;
  offset: number;
  /** Read from the far end of the order (rows with their records still come back in the order). */
  backwards: boolean;
  /** Cursors (keyset.ts): only the rows strictly after `after` and before `before` in the order. */
  after: string | null;
  before: string | null;
  /**
   * With records: the payload characters the request may still read (kernel/request-budget.ts).
   * A page whose records' payloads reach past them comes without payloads (withinPayloads), so it
   * never arrives here when the request could not answer it anyway.
   */
  payloadsLeft?: number;
}

/** The statements of one read, and the order its rows' cursors belong to. */
export interface Read {
  search: SqlStatement;
  /**
   * The same read among the first `2 × (offset + limit)` records in index order only, or null where
   * that is no shortcut. Exact when it returns `limit` rows: the window is a prefix of the order
   * (from the cursor), so no record outside it can come before those it holds; otherwise the
   * caller runs `search`. For reads in index order (no sort, or `created_at` only) with payload
   * conditions, on a dialect that tries it (PostgreSQL: it plans every payload condition as
   * matching a handful of records and sorts all the matches, so a condition that most records meet
   * grows with the table: "the latest 20 Battery assessments" of 100,000, 600 ms). Read in index
   * order, the window stops after the page; a selective condition fills no page there and costs
   * twice a page's reads more.
   */
  window: SqlStatement | null;
  order: OrderShape;
}

/**
 * A slice of the records a query selects, in order, as RecordRows with their KeyColumns
 * (`withRecords`), or as keys only (`id`, `namespace` and the KeyColumns: no payload is read), in
 * reading order. One statement, one round trip: the slice is found first (`p`: keys and sort keys,
 * sorted and limited), then joined to the records it names for their columns, so that only the
 * slice's payloads are rendered as text: PostgreSQL computes a SELECT list before it sorts, which
 * for every match's payload would take longer than the search (300 payloads instead of 100 for an
 * `in` of 3 values). The join does not keep the slice's order: the sort keys, selected in `p`,
 * order the result again (a sort of one page), in the order's own direction even when the slice
 * was read backwards.
 */
export function translateRead(dialect: SqlDialect, query: RecordQuery, viewer: Principal, slice: Slice, withRecords: boolean): Read {
  const { statement, order } = readStatement(dialect, query, viewer, slice, withRecords, false);
  const window = triesWindow(dialect, query, slice) ? readStatement(dialect, query, viewer, slice, withRecords, true).statement : null;
  return { search: statement, window, order };
}

/** translateRead of a filter's page (`limit` from `offset`): its search. */
export function translateQuery(dialect: SqlDialect, filter: RecordFilter, viewer: Principal, within: ModelVersion | null): SqlStatement {
  return translateRead(dialect, { where: filter.where, sort: filter.sort, within }, viewer, filterSlice(filter), true).search;
}

/** The slice of a filter's `limit` and `offset`. */
export function filterSlice({ limit, offset }: Pick<RecordFilter, 'limit' | 'offset'>): Slice {
  return { limit, offset, backwards: false, after: null, before: null };
}

/** How many records a query selects: the same conditions and visibility, no order. */
export function translateCount(dialect: SqlDialect, query: RecordQuery, viewer: Principal): SqlStatement {
  const sql = new SqlWriter(dialect);
  const where = matching(sql, query, viewer);
  return { sql: `SELECT count(*) AS total FROM records r${sql.joins.join('')} WHERE ${allOf(where)}`, values: sql.values };
}

function readStatement(dialect: SqlDialect, query: RecordQuery, viewer: Principal, slice: Slice, withRecords: boolean, windowed: boolean) {
  const sql = new SqlWriter(dialect);
  const where = matching(sql, query, viewer);
  const order = orderTerms(sql, query);
  const shape = orderShape(query, order);
  const bounds = cursorBounds(sql, order, shape, slice);
  const reading = slice.backwards ? order.map(reversed) : order;
  const from = windowed ? indexOrderWindow(sql, query.within, bounds, reading, 2 * (slice.offset + slice.limit)) : 'records r';
  const keys = keysSelect(sql, from, [...where, ...bounds], reading, slice);
  const records = !withRecords ? keys : slice.payloadsLeft === undefined ? withRecordColumns(sql.dialect, keys, order) : withinPayloads(sql, keys, order, reading, slice.limit, slice.payloadsLeft);
  return { statement: { sql: records, values: sql.values }, order: shape };
}

/** The keys and sort keys (`k0`, `k1`, …) of a slice, in reading order. */
function keysSelect(sql: SqlWriter, from: string, where: string[], reading: OrderTerm[], slice: Slice): string {
  return (
    `SELECT r.id, r.namespace, ${reading.map(({ expression }, i) => `${expression} AS k${i}`).join(', ')}` +
    ` FROM ${from}${sql.joins.join('')} WHERE ${allOf(where)} ORDER BY ${orderBy(reading)}` +
    ` LIMIT ${sql.integer(slice.limit)} OFFSET ${sql.integer(slice.offset)}`
  );
}

/** The records `keys` names, with their sort keys, in the order. */
function withRecordColumns(dialect: SqlDialect, keys: string, order: OrderTerm[]): string {
  return `SELECT ${recordColumns(dialect)}, ${sortKeys(order, 'p')} FROM (${keys}) p JOIN records r ON ${sameRecord('p')} ORDER BY ${sortedBy(order, 'p')}`;
}

/**
 * The records `keys` names within the payload characters the request may still read
 * (Slice.payloadsLeft). The database first measures every payload (only keys and lengths carried
 * along) and sums those of the page's own records: every row but the one at `limit`, a look-ahead
 * that only tells whether more follow. The payloads come back only when that sum is within what is
 * left; otherwise every one is withheld (NULL), and `payload_chars` says what the page would have
 * cost, so a page past the budget is refused without its payloads ever leaving the database. The
 * look-ahead's payload never comes.
 */
function withinPayloads(sql: SqlWriter, keys: string, order: OrderTerm[], reading: OrderTerm[], limit: number, left: number): string {
  const ownRecord = `m.read_at < ${sql.integer(limit)}`;
  const measured = `SELECT p.*, length(${sql.dialect.payloadText}) AS payload_chars, ROW_NUMBER() OVER (ORDER BY ${sortedBy(reading, 'p')}) AS read_at FROM (${keys}) p JOIN records r ON ${sameRecord('p')}`;
  const priced = `SELECT m.*, SUM(CASE WHEN ${ownRecord} THEN m.payload_chars ELSE 0 END) OVER () AS page_chars FROM (${measured}) m`;
  const payload = `CASE WHEN ${ownRecord} AND m.page_chars <= ${sql.integer(left)} THEN ${sql.dialect.payloadText} END`;
  return `SELECT ${recordColumns(sql.dialect, payload)}, m.payload_chars, ${sortKeys(order, 'm')} FROM (${priced}) m JOIN records r ON ${sameRecord('m')} ORDER BY ${sortedBy(order, 'm')}`;
}

/** The sort keys (`k0`, `k1`, …) of the derived table `alias`. */
function sortKeys(order: OrderTerm[], alias: string): string {
  return order.map((_, i) => `${alias}.k${i}`).join(', ');
}

/** An ORDER BY of the derived table `alias`'s sort keys in `order`'s directions. */
function sortedBy(order: OrderTerm[], alias: string): string {
  return order.map(({ direction }, i) => `${alias}.k${i} ${direction}`).join(', ');
}

/** The record `r` that the derived table `alias`'s row names. */
function sameRecord(alias: string): string {
  return `r.id = ${alias}.id AND r.namespace = ${alias}.namespace`;
}

/** Whether a read tries its index-order window first (Read.window). */
function triesWindow(dialect: SqlDialect, query: RecordQuery, slice: Slice): boolean {
  const indexOrder = query.sort.every(({ field }) => field.kind === 'timestamp' && field.column === 'created_at');
  const payloadCondition = query.where.some(({ field }) => field.kind === 'payload');
  return dialect.triesIndexOrderWindow && indexOrder && payloadCondition && slice.limit > 0;
}

/**
 * The first `size` records of the model version from the cursors, in the read's own order (so a
 * prefix of it), as `r`. Only for an order of storage columns (triesWindow): its terms and the
 * cursors' bounds then read the window's own `r` alike.
 */
function indexOrderWindow(sql: SqlWriter, within: ModelVersion | null, bounds: string[], reading: OrderTerm[], size: number): string {
  const scope = within === null ? 'TRUE' : inModelVersion(sql, within);
  return `(SELECT r.* FROM records r WHERE ${allOf([scope, ...bounds])} ORDER BY ${orderBy(reading)} LIMIT ${sql.integer(size)}) r`;
}

/** What a query selects: visibility, the model version, the conditions (clauses over `r`). */
function matching(sql: SqlWriter, query: RecordQuery, viewer: Principal): string[] {
  const where = [visibleTo(sql, viewer)];
  if (query.within !== null) where.push(inModelVersion(sql, query.within));
  where.push(...query.where.map((condition) => conditionSql(sql, condition)));
  return where;
}

function inModelVersion(sql: SqlWriter, { model, version }: ModelVersion): string {
  return `r.model = ${sql.text(model)} AND r.version = ${sql.text(version)}`;
}

/** The sort keys, then the tie-break: a total order of the records. */
function orderTerms(sql: SqlWriter, query: RecordQuery): OrderTerm[] {
  return [...query.sort.flatMap((key) => sortSql(sql, key, query.where)), ...tieBreak(query.sort)];
}

/**
 * Ties are broken by `created_at`, then `id`, then `tie_break` (two tenants may hold one id), so
 * that pages are stable; all ascending unless the sort names `created_at`, whose direction they
 * then follow (newest first is the exact reverse of the default order). `id` in the column's own
 * collation here, not code point order as in a sort on `id`: the (model, version, created_at, id,
 * tie_break) and (created_at, id, tie_break) indexes then give the order themselves, and "the
 * latest 20" reads 20 rows however many match. With a code point tie-break PostgreSQL sorted every
 * match whenever it underestimated them (each payload condition is estimated at well under 1% of
 * the rows), which grew with the table. `tie_break`, a random number the database draws for each
 * record, and not the namespace: a cursor holds every key of its row, and the namespace is the
 * owner's tenant, which a reader through a grant must not learn (nor guess: a digest of it could
 * be tried against a list of tenant names).
 */
function tieBreak(sort: SortKey[]): OrderTerm[] {
  const createdAt = sort.find(({ field }) => field.kind === 'timestamp' && field.column === 'created_at');
  const direction = createdAt?.direction === 'desc' ? 'DESC' : 'ASC';
  const keys = createdAt ? TIE_BREAK.slice(1) : TIE_BREAK;
  return keys.map(([column, kind]) => ({ expression: `r.${column}`, direction, kind, nullable: false }));
}

const TIE_BREAK: Array<[string, KeyKind]> = [
  ['created_at', 'instant'],
  ['id', 'text'],
  ['tie_break', 'integer'],
];

function orderBy(order: OrderTerm[]): string {
  return order.map(({ expression, direction }) => `${expression} ${direction}`).join(', ');
}

/** The order read from its far end: every key's direction turned, which also turns where NULLs go. */
function reversed(term: OrderTerm): OrderTerm {
  return { ...term, direction: term.direction === 'ASC' ? 'DESC' : 'ASC' };
}

/** The record of one key. */
export function selectRecord(dialect: SqlDialect, { id, namespace }: RecordKey): SqlStatement {
  const sql = new SqlWriter(dialect);
  return recordsWhere(sql, `r.id = ${sql.text(id)} AND r.namespace = ${sql.text(namespace)}`);
}

/**
 * The records with those ids that `viewer` may read: every visible one, in no order (the store picks
 * the one each id names, `preferredRows`). Within `payloadsLeft` payload characters, as a page is
 * read (withinPayloads): the database measures the payloads first and sends them only when their sum
 * is within what is left; otherwise every one is withheld (NULL), and `payload_chars` says what it
 * would have cost, so that a batch past the budget is refused without its payloads leaving the database.
 */
export function selectVisibleRecords(dialect: SqlDialect, ids: readonly string[], viewer: Principal, payloadsLeft?: number): SqlStatement {
  const sql = new SqlWriter(dialect);
  const where = `r.id IN (${ids.map((id) => sql.text(id)).join(', ')}) AND (${visibleTo(sql, viewer)})`;
  if (payloadsLeft === undefined) return recordsWhere(sql, where);
  const measured = `SELECT r.id, r.namespace, length(${dialect.payloadText}) AS payload_chars FROM records r WHERE ${where}`;
  const priced = `SELECT m.*, SUM(m.payload_chars) OVER () AS batch_chars FROM (${measured}) m`;
  const payload = `CASE WHEN m.batch_chars <= ${sql.integer(payloadsLeft)} THEN ${dialect.payloadText} END`;
  return { sql: `SELECT ${recordColumns(dialect, payload)}, m.payload_chars FROM (${priced}) m JOIN records r ON ${sameRecord('m')}`, values: sql.values };
}

function recordsWhere(sql: SqlWriter, where: string): SqlStatement {
  return { sql: `SELECT ${recordColumns(sql.dialect)} FROM records r WHERE ${where}`, values: sql.values };
}

/** The columns of a RecordRow, of the records aliased `r`. */
function recordColumns(dialect: SqlDialect, payload = dialect.payloadText): string {
  return `r.id, r.namespace, r.model, r.version, ${payload} AS payload, r.created_by_sub, r.tenant_id, r.created_at, r.updated_at`;
}

/**
 * A new record's row, its payload the canonical JSON text the domain prepared (StorableRecord),
 * bound as JSON: every number keeps its digits, a bare-number payload included (Prisma's own write
 * rounded one to 15 significant digits: 0.30000000000000004 became 0.3). `tie_break` is the
 * database's draw, the column's default.
 */
export function insertRecord(dialect: SqlDialect, record: StorableRecord, owner: Principal, at: string): SqlStatement {
  const sql = new SqlWriter(dialect);
  const row = [
    sql.text(record.id),
    sql.text(recordNamespace(owner)),
    sql.text(record.model),
    sql.text(record.version),
    sql.param(record.payloadJson, 'json'),
    sql.text(owner.subject),
    sql.param(owner.tenant, 'text'),
    sql.instant(at),
    sql.instant(at),
  ];
  return { sql: `INSERT INTO records (id, namespace, model, version, payload, created_by_sub, tenant_id, created_at, updated_at) VALUES (${row.join(', ')})`, values: sql.values };
}

/** An idempotency key's claim that expired by `at` (let go before the key is claimed again). */
export function deleteExpiredClaim(dialect: SqlDialect, { scope, key }: IdempotencyClaim, at: string): SqlStatement {
  const sql = new SqlWriter(dialect);
  return { sql: `DELETE FROM idempotency_keys WHERE scope = ${sql.text(scope)} AND key = ${sql.text(key)} AND expires_at <= ${sql.instant(at)}`, values: sql.values };
}

/** An idempotency key's claim on a record, from `at` until `expiresAt`. */
export function insertClaim(dialect: SqlDialect, { scope, key, fingerprint }: IdempotencyClaim, record: RecordKey, at: string, expiresAt: string): SqlStatement {
  const sql = new SqlWriter(dialect);
  const row = [sql.text(scope), sql.text(key), sql.text(fingerprint), sql.text(record.id), sql.text(record.namespace), sql.instant(at), sql.instant(expiresAt)];
  return { sql: `INSERT INTO idempotency_keys (scope, key, fingerprint, record_id, record_namespace, created_at, expires_at) VALUES (${row.join(', ')})`, values: sql.values };
}

/** The live claim of a key at `at` (`fingerprint`, `record_id`, `record_namespace`), if any. */
export function selectLiveClaim(dialect: SqlDialect, scope: string, key: string, at: string): SqlStatement {
  const sql = new SqlWriter(dialect);
  const where = `scope = ${sql.text(scope)} AND key = ${sql.text(key)} AND expires_at > ${sql.instant(at)}`;
  return { sql: `SELECT fingerprint, record_id, record_namespace FROM idempotency_keys WHERE ${where}`, values: sql.values };
}

/** The keys (`id`, `namespace`) of the records with that id the owner stored (within its tenant, if it has one). */
export function selectOwned(dialect: SqlDialect, id: string, owner: Principal): SqlStatement {
  const sql = new SqlWriter(dialect);
  const tenant = owner.tenant === null ? '' : ` AND tenant_id = ${sql.text(owner.tenant)}`;
  return { sql: `SELECT id, namespace FROM records WHERE id = ${sql.text(id)} AND created_by_sub = ${sql.text(owner.subject)}${tenant}`, values: sql.values };
}

/** A read grant on a record (none added when it is there already). */
export function insertGrant(dialect: SqlDialect, record: RecordKey, grantee: Grantee, at: string): SqlStatement {
  const sql = new SqlWriter(dialect);
  const row = [sql.text(record.id), sql.text(record.namespace), sql.text(grantee.kind), sql.text(grantee.id), sql.instant(at)];
  return { sql: `INSERT INTO record_grants (record_id, record_namespace, grantee_kind, grantee, created_at) VALUES (${row.join(', ')}) ON CONFLICT DO NOTHING`, values: sql.values };
}

export function deleteGrant(dialect: SqlDialect, record: RecordKey, grantee: Grantee): SqlStatement {
  const sql = new SqlWriter(dialect);
  const where = `record_id = ${sql.text(record.id)} AND record_namespace = ${sql.text(record.namespace)} AND grantee_kind = ${sql.text(grantee.kind)} AND grantee = ${sql.text(grantee.id)}`;
  return { sql: `DELETE FROM record_grants WHERE ${where}`, values: sql.values };
}

/**
 * A record's payload numbers into record_numbers, in one statement whatever their count, each double
 * exactly: as `[path, text]` pairs of one JSON parameter, the text (JavaScript's shortest form that
 * reads back as the same double) cast by the database. Prisma's createMany wrote some doubles as
 * 16-digit decimals: -1.7976931348623155e308 arrived as an overflow (out of range on PostgreSQL,
 * Infinity refused on SQLite) and failed the create. JSON numbers would not do on SQLite, whose
 * JSON functions read them with 15 digits.
 */
export function writeNumbers(dialect: SqlDialect, { id, namespace }: RecordKey, numbers: PayloadNumber[]): SqlStatement {
  const sql = new SqlWriter(dialect);
  const pairs = sql.dialect.numberPairs(sql.json(numbers.map(({ path, value }) => [path, String(value)])));
  const rows = `SELECT ${sql.text(id)}, ${sql.text(namespace)}, ${pairs.path}, ${pairs.value} FROM ${pairs.from}`;
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
      return sql.dialect.payloadCondition(sql, condition.field.path, condition);
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
      return isText(condition.value) ? sql.dialect.substring(column, sql.text(condition.value)) : 'FALSE';
    case 'exists':
      return condition.value ? 'TRUE' : 'FALSE';
    default:
      return isText(condition.value) ? `${sql.dialect.collated(column)} ${COMPARATORS[condition.op]} ${sql.text(condition.value)}` : 'FALSE';
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

type NumberRange = { op: RangeOperator; value: number };

function isNumberRange(condition: Condition): condition is Condition & NumberRange {
  return condition.op in COMPARATORS && typeof (condition as { value?: unknown }).value === 'number';
}

/** A range on a payload number: the field's row in record_numbers (absent unless it is a number). */
function numberRange(sql: SqlWriter, path: PathSegment[], { op, value }: NumberRange): string {
  return `${sql.numbers(path)}.value ${COMPARATORS[op]} ${sql.double(value)}`;
}

/**
 * A payload field's sort keys. Its number comes from record_numbers and the payload is read only
 * for rows whose field is not a number (CASE stops at its first true branch), so sorting numbers
 * decodes no payload. When a range condition keeps numbers only, the value alone orders them, and
 * the (path, value) index can hand rows over already in order.
 */
function payloadSort(sql: SqlWriter, path: PathSegment[], direction: OrderTerm['direction'], where: Condition[]): OrderTerm[] {
  const number = `${sql.numbers(path)}.value`;
  // Never NULL here: the range keeps only records whose field is a number.
  if (where.some((condition) => keepsNumbersOnly(condition, path))) return [{ expression: number, direction, kind: 'double', nullable: false }];
  const json = sql.dialect.payloadSortKeys(sql, path);
  const unlessNumber = (expression: string, whenNumber: string) => `CASE WHEN ${number} IS NOT NULL THEN ${whenNumber} ELSE ${expression} END`;
  return [
    { expression: unlessNumber(json.missing, 'FALSE'), direction: 'ASC', kind: 'boolean', nullable: false },
    { expression: unlessNumber(json.rank, '0'), direction, kind: 'integer', nullable: false },
    { expression: number, direction, kind: 'double', nullable: true },
    { expression: sql.dialect.collated(unlessNumber(json.text, 'NULL')), direction, kind: 'text', nullable: true },
    { expression: unlessNumber(json.boolean, 'NULL'), direction, kind: 'boolean', nullable: true },
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
      return [{ expression: sql.dialect.collated(`r.${field.column}`), direction, kind: 'text', nullable: false }];
    case 'timestamp':
      return [{ expression: `r.${field.column}`, direction, kind: 'instant', nullable: false }];
    case 'payload':
      return payloadSort(sql, field.path, direction, where);
  }
}
