import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient } from '@libsql/client';
import pg from 'pg';
import { canonicalJson } from '../kernel/records/canonical-json.js';
import type { JsonValue } from '../kernel/records/canonical-json.js';
import { openDatabase } from '../database/database.js';
import { DEFAULT_DATABASE_LIMITS } from '../database/limits.js';
import { openRecordStore } from '../subgraphs/models/store/open-store.js';
import { type PayloadNumber, payloadNumbers } from '../subgraphs/models/domain/records/record-numbers.js';
import { parseRecordFilter } from '../kernel/records/record-filter.js';
import { type Principal, recordNamespace } from '../subgraphs/models/domain/records/record-store.js';
import { type SqlStatement, translateQuery, translateRead } from '../subgraphs/models/store/query-translator.js';
import type { Backend } from '../database/location.js';
import { postgresqlDialect } from '../subgraphs/models/store/sql/postgresql-dialect.js';
import { sqliteDialect } from '../subgraphs/models/store/sql/sqlite-dialect.js';
import { type Figure, percentile, round } from './figures.js';
import { load } from './load.js';
import { SHARED_DATA, publishedCatalogEntry, sharedAssessment, sharedDataPresent, startBenchSystem } from './fixtures.js';

const RECORD_COUNT = 100_000;
const MANUFACTURERS = 1000;
const INSERT_BATCH = 2000;
export const MODEL_VERSION = { model: 're-indicators-specification', version: '0.0.4' };
/** One owner sees every record: the widest visibility, so no query is served by the owner index. */
export const OWNER: Principal = { subject: 'bench-owner', tenant: 'bench' };
const NAMESPACE = recordNamespace(OWNER);
const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface BenchQuery {
  name: string;
  target: number;
  what: string;
  filter: unknown;
}

const manufacturer = (n: number) => `manufacturer-${String(n).padStart(4, '0')}`;

/** The core `:query` shapes of the issue; each matches a known share of the 100,000 records. */
export const QUERIES: BenchQuery[] = [
  {
    name: 'eq_nested',
    target: 10,
    what: `eq on payload.product_info.manufacturer (${RECORD_COUNT / MANUFACTURERS} matches)`,
    filter: { where: [{ field: 'payload.product_info.manufacturer', op: 'eq', value: manufacturer(421) }], limit: 100 },
  },
  {
    name: 'in',
    target: 10,
    what: `in with 3 manufacturers (${(3 * RECORD_COUNT) / MANUFACTURERS} matches)`,
    filter: { where: [{ field: 'payload.product_info.manufacturer', op: 'in', value: [manufacturer(7), manufacturer(421), manufacturer(999)] }], limit: 100 },
  },
  {
    name: 'gt_sort',
    target: 50,
    what: 'gt 2.4 on payload.total_score (about 10% match), sorted by it desc',
    filter: { where: [{ field: 'payload.total_score', op: 'gt', value: 2.4 }], sort: [{ field: 'payload.total_score', direction: 'desc' }], limit: 100 },
  },
];

/**
 * The records store under 100,000 assessments (`records.<pg|sqlite>_100k.*`: three core `:query`
 * shapes, measured at the store level with the translated SQL's plan in the note; on PostgreSQL
 * also the 1,000th keyset page against the first, through the graph of a running system) and `:create`
 * with idempotency through the core facade at 20 connections (`records.<pg|sqlite>.create.*`).
 * PostgreSQL figures need the server at TEST_POSTGRES_URL (a database is created and dropped).
 */
export async function benchRecords(only?: string): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('records bench skipped: ../shared/data is absent');
    return [];
  }
  const wanted = (prefix: string) => !only || prefix.startsWith(only) || only.startsWith(prefix);
  const figures: Figure[] = [];
  const postgres = await postgresUp();
  if (postgres && wanted('records.pg_100k')) figures.push(...(await withPostgres((url) => queryFigures('postgresql', url))));
  if (postgres && wanted('records.pg.create')) figures.push(...(await withPostgres((url) => createFigures('pg', url))));
  if (wanted('records.sqlite_100k')) figures.push(...(await withSqlite((url) => queryFigures('sqlite', url))));
  if (wanted('records.sqlite.create')) figures.push(...(await withSqlite((url) => createFigures('sqlite', url))));
  return figures;
}

// Queries -----------------------------------------------------------------------------------------

async function queryFigures(backend: Backend, url: string): Promise<Figure[]> {
  const store = await openRecordStore(await openDatabase(url, { limits: DEFAULT_DATABASE_LIMITS }));
  try {
    const loadMs = await insertAssessments(backend, url);
    const figures: Figure[] = [];
    for (const query of QUERIES) {
      const filter = parseRecordFilter(query.filter);
      const { p50, runs, found } = await timeQuery(() => store.queryRecords(filter, OWNER, MODEL_VERSION));
      const plan = await explain(backend, url, query.filter);
      const prefix = backend === 'postgresql' ? 'pg' : 'sqlite';
      figures.push({
        id: `records.${prefix}_100k.${query.name}.p50_ms`,
        value: round(p50, 2),
        unit: 'ms',
        // The targets are PostgreSQL's; SQLite's figures are reported beside them.
        ...(backend === 'postgresql' ? { target: query.target } : {}),
        better: 'lower',
        note:
          `store.queryRecords (core :query scoped to the model version, owner visibility, limit 100, ${found} returned), ${query.what}; ` +
          `p50 of ${runs} warm runs (1-min load average ${round(os.loadavg()[0], 1)} on ${os.cpus().length} CPUs); ` +
          `${RECORD_COUNT} assessments loaded in ${round(loadMs / 1000, 1)} s. Plan: ${plan}`,
      });
    }
    if (backend === 'postgresql') figures.push(await pageFigure(url));
    return figures;
  } finally {
    await store.close();
  }
}

const PAGE_SIZE = 100;
const LATE_PAGE = 1000;
const PAGE_ROUNDS = 300;

/**
 * `records.pg_100k.page_1000_vs_1.p50_ratio`: the last page (the 1,000th of 100) ÷ the first,
 * through the graph of a running system (POST /graphql `records(first: 100, after:)`), the two
 * requests interleaved round after round so that load drifts reach both alike. The cursor of page
 * 999's end comes first, from keys-only pages (`pageInfo { endCursor }`, 1,000 records at a time).
 */
async function pageFigure(url: string): Promise<Figure> {
  const system = await startBenchSystem({ DATABASE_URL: url, AUTH_NONE_SUBJECT: OWNER.subject, AUTH_NONE_TENANT: OWNER.tenant! });
  try {
    const graph = graphClient(`http://127.0.0.1:${system.ports.gateway}/graphql`);
    const cursor = await cursorAfter(graph, (LATE_PAGE - 1) * PAGE_SIZE);
    const page = (after: string | null) => graph('query ($after: String) { records(first: 100, after: $after) { nodes { id } } }', { after });
    const late = (await page(cursor)) as { records: { nodes: Array<{ id: string }> } };
    const expected = Array.from({ length: PAGE_SIZE }, (_, i) => `assessment-${(LATE_PAGE - 1) * PAGE_SIZE + i}`);
    if (JSON.stringify(late.records.nodes.map(({ id }) => id)) !== JSON.stringify(expected)) throw new Error('records page 1,000 does not hold records 99,900 to 99,999');
    const [first, last] = await interleaved([() => page(null), () => page(cursor)], PAGE_ROUNDS);
    const [p1, p1000] = [percentile(first, 50), percentile(last, 50)];
    const plan = await explainStatement('postgresql', url, keysetStatement(cursor));
    return {
      id: 'records.pg_100k.page_1000_vs_1.p50_ratio',
      value: round(p1000 / p1, 2),
      unit: 'ratio',
      target: 1.5,
      better: 'lower',
      note:
        `POST /graphql records(first: ${PAGE_SIZE}, after:) { nodes { id } } on the running system (gateway → models subgraph → PostgreSQL), ` +
        `${RECORD_COUNT} records, default order; p50 page ${LATE_PAGE} ${round(p1000, 2)} ms ÷ p50 page 1 ${round(p1, 2)} ms, ` +
        `${PAGE_ROUNDS} interleaved rounds after 20 warm-up rounds (1-min load average ${round(os.loadavg()[0], 1)} on ${os.cpus().length} CPUs). ` +
        `Page ${LATE_PAGE}'s plan: ${plan}`,
    };
  } finally {
    await system.stop();
  }
}

/** The cursor after the first `count` records, walked in the graph's largest keys-only pages (`first` is at most 1,000). */
async function cursorAfter(graph: ReturnType<typeof graphClient>, count: number): Promise<string> {
  let cursor: string | null = null;
  for (let skipped = 0; skipped < count; skipped += 1000) {
    const page = await graph('query ($first: Int, $after: String) { records(first: $first, after: $after) { pageInfo { endCursor } } }', { first: Math.min(1000, count - skipped), after: cursor });
    cursor = (page as { records: { pageInfo: { endCursor: string } } }).records.pageInfo.endCursor;
  }
  return cursor!;
}

/** Each run's durations (ms), the runs taking turns round after round, after 20 warm-up rounds. */
async function interleaved(runs: Array<() => Promise<unknown>>, rounds: number): Promise<number[][]> {
  const durations = runs.map((): number[] => []);
  for (let round = -20; round < rounds; round++) {
    for (const [index, run] of runs.entries()) {
      const started = performance.now();
      await run();
      if (round >= 0) durations[index]!.push(performance.now() - started);
    }
  }
  return durations;
}

/** POSTs a query and returns its data; a GraphQL error fails the bench. */
function graphClient(endpoint: string): (query: string, variables: Record<string, unknown>) => Promise<unknown> {
  return async (query, variables) => {
    const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const body = (await response.json()) as { data?: unknown; errors?: unknown };
    if (!response.ok || body.errors) throw new Error(`records page: ${response.status} ${JSON.stringify(body.errors)}`);
    return body.data;
  };
}

/** The statement of a page of 100 records after `cursor`, all model versions, as the page figure's request reads it. */
function keysetStatement(cursor: string): SqlStatement {
  const slice = { limit: PAGE_SIZE + 1, offset: 0, backwards: false, after: cursor, before: null };
  return translateRead(postgresqlDialect, { where: [], sort: [], within: null }, OWNER, slice, true).search;
}

export async function timeQuery(run: () => Promise<unknown[]>): Promise<{ p50: number; runs: number; found: number }> {
  let found = 0;
  for (let i = 0; i < 10; i++) found = (await run()).length;
  const durations: number[] = [];
  const until = performance.now() + 5000;
  while (durations.length < 30 || (durations.length < 300 && performance.now() < until)) {
    const started = performance.now();
    await run();
    durations.push(performance.now() - started);
  }
  return { p50: percentile(durations, 50), runs: durations.length, found };
}

/**
 * The translated SQL's plan, condensed to its nodes: EXPLAIN ANALYZE on PostgreSQL (row counts
 * kept), EXPLAIN QUERY PLAN on SQLite.
 */
export async function explain(backend: Backend, url: string, rawFilter: unknown): Promise<string> {
  return explainStatement(backend, url, translateQuery(backend === 'sqlite' ? sqliteDialect : postgresqlDialect, parseRecordFilter(rawFilter), OWNER, MODEL_VERSION));
}

async function explainStatement(backend: Backend, url: string, { sql, values }: SqlStatement): Promise<string> {
  if (backend === 'sqlite') {
    const client = createClient({ url });
    try {
      const { rows } = await client.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: values as never });
      return rows.map((row) => String(row.detail)).join('; ');
    } finally {
      client.close();
    }
  }
  const rows = await onPostgres(url, `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`, values);
  const lines = rows.map((row) => String(row['QUERY PLAN']));
  // The grants subplan of the visibility clause follows; it never runs for the owner's own records.
  const visibility = lines.findIndex((line) => /^\s*SubPlan/.test(line));
  return lines
    .slice(0, visibility < 0 ? undefined : visibility)
    .filter((line, index) => index === 0 || /^\s*->|Index Cond/.test(line))
    .map((line) =>
      line
        .trim()
        .replace(/^->\s*/, '')
        .replace(/\s*\(actual rows=(\d+) loops=(\d+)\)/, ' [rows $1 ×$2]'),
    )
    .join(' > ');
}

// Data ----------------------------------------------------------------------------------------------

interface Question {
  question_id: string;
  weight: number;
  answers: Array<{ answer_id: string; score: number }>;
}

/**
 * The shared assessment with its answers varied: each question gets a (seeded) random answer of the
 * published calculation artifact, `total_score` is Σ parameter weight × Σ question weight × answer
 * score (a number to sort on), and the manufacturer is one of 1,000.
 */
async function assessmentMaker(): Promise<(n: number) => JsonValue> {
  const base = sharedAssessment() as { parameter_assessments: Array<{ parameter_id: string }>; product_info: Record<string, unknown> };
  const calculation = JSON.parse(await readFile(path.join(SHARED_DATA, 're-indicators-calculation', 'calculation-recycle-battery-0.0.4.json'), 'utf8'));
  const parameters = (calculation.indicator_configurations.REcycle_Battery.parameters as Array<{ parameter_ref: string; weight: number; questions: Question[] }>).filter((parameter) =>
    base.parameter_assessments.some((assessed) => assessed.parameter_id === parameter.parameter_ref),
  );
  const random = seeded(20250601);
  return (n) => {
    let total = 0;
    const parameterAssessments = parameters.map((parameter) => ({
      parameter_id: parameter.parameter_ref,
      question_answers: parameter.questions.map((question) => {
        const answer = question.answers[Math.floor(random() * question.answers.length)]!;
        total += parameter.weight * question.weight * answer.score;
        return { question_id: question.question_id, selected_answer_id: answer.answer_id };
      }),
    }));
    return {
      ...base,
      id: `assessment-${n}`,
      product_info: { ...base.product_info, manufacturer: manufacturer(n % MANUFACTURERS), serial_number: `SN-${n}` },
      parameter_assessments: parameterAssessments,
      total_score: round(total * 5 * (0.9 + 0.2 * random()), 4),
    } as JsonValue;
  };
}

/** mulberry32: the same records on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Bulk rows written the way the store writes them (canonical JSON payloads, their numbers in
 * record_numbers; timestamps as timestamptz, or epoch milliseconds on SQLite), one second apart.
 * PostgreSQL is then vacuumed and analyzed, as autovacuum does after such a load (the vacuum also
 * empties the GIN index's pending list, which every containment search would otherwise read).
 */
export async function insertAssessments(backend: Backend, url: string, until = RECORD_COUNT, from = 0): Promise<number> {
  const make = await assessmentMaker();
  const started = performance.now();
  const epoch = Date.parse('2025-01-01T00:00:00Z');
  // `from`/`until` (record numbers) let bench/growth.bench.ts grow one table 10k → 100k → 1M.
  for (let first = from; first < until; first += INSERT_BATCH) {
    const rows = Array.from({ length: Math.min(INSERT_BATCH, until - first) }, (_, i) => {
      const n = first + i;
      const payload = make(n);
      return { id: `assessment-${n}`, payload: canonicalJson(payload), numbers: payloadNumbers(payload), at: epoch + n * 1000 };
    });
    await (backend === 'postgresql' ? insertPostgres(url, rows) : insertSqlite(url, rows));
  }
  if (backend === 'postgresql') await onPostgres(url, 'VACUUM ANALYZE records, record_numbers');
  return performance.now() - started;
}

type Row = { id: string; payload: string; numbers: PayloadNumber[]; at: number };

async function insertPostgres(url: string, rows: Row[]): Promise<void> {
  const column = <T>(pick: (row: Row) => T) => rows.map(pick);
  const instants = column((row) => new Date(row.at).toISOString());
  await onPostgres(
    url,
    `INSERT INTO records (id, namespace, model, version, payload, created_by_sub, tenant_id, created_at, updated_at)
     SELECT id, $8, $2, $3, payload, $4, $5, at, at FROM unnest($1::text[], $6::jsonb[], $7::timestamptz[]) AS r(id, payload, at)`,
    [column((row) => row.id), MODEL_VERSION.model, MODEL_VERSION.version, OWNER.subject, OWNER.tenant, column((row) => row.payload), instants, NAMESPACE],
  );
  const numbers = rows.flatMap((row) => row.numbers.map((number) => ({ id: row.id, ...number })));
  await onPostgres(url, 'INSERT INTO record_numbers (record_id, record_namespace, path, value) SELECT id, $4, path, value FROM unnest($1::text[], $2::text[], $3::float8[]) AS n(id, path, value)', [
    numbers.map((n) => n.id),
    numbers.map((n) => n.path),
    numbers.map((n) => n.value),
    NAMESPACE,
  ]);
}

async function insertSqlite(url: string, rows: Row[]): Promise<void> {
  const client = createClient({ url });
  try {
    const perStatement = 400;
    const statements = [];
    for (let i = 0; i < rows.length; i += perStatement) {
      const chunk = rows.slice(i, i + perStatement);
      statements.push({
        sql: `INSERT INTO records (id, namespace, model, version, payload, created_by_sub, tenant_id, created_at, updated_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        args: chunk.flatMap((row) => [row.id, NAMESPACE, MODEL_VERSION.model, MODEL_VERSION.version, row.payload, OWNER.subject, OWNER.tenant, row.at, row.at]),
      });
    }
    for (const row of rows) {
      for (const { path: field, value } of row.numbers)
        statements.push({ sql: 'INSERT INTO record_numbers (record_id, record_namespace, path, value) VALUES (?, ?, ?, ?)', args: [row.id, NAMESPACE, field, value] });
    }
    await client.batch(statements, 'write');
  } finally {
    client.close();
  }
}

// Creates -------------------------------------------------------------------------------------------

/** `:create` of the published model (validated as an Assessment), a new key and record id per request. */
async function createFigures(prefix: 'pg' | 'sqlite', url: string): Promise<Figure[]> {
  const system = await startBenchSystem({ DATABASE_URL: url, REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry('Assessment')]) });
  try {
    const core = `http://127.0.0.1:${system.ports.core}`;
    const request = {
      method: 'POST' as const,
      path: `/models/${MODEL_VERSION.model}/versions/${MODEL_VERSION.version}:create`,
      body: { payload: { ...sharedAssessment(), id: 'bench-{{unique}}' } },
      headers: { 'idempotency-key': 'key-{{unique}}' },
      unique: '{{unique}}',
    };
    await load(core, request, { seconds: 2 });
    const result = await load(core, request, { seconds: 8 });
    // The same payload through :validate alone, to tell the validators' share from the store's.
    const validation = await load(core, { method: 'POST', path: request.path.replace(/:create$/, ':validate'), body: { payload: sharedAssessment() } }, { seconds: 8 });
    for (const run of [result, validation]) {
      if (run.errors > 0 || run.non2xx > 0) throw new Error(`records create: ${run.errors} errors, ${run.non2xx} non-2xx answers under load`);
    }
    const note =
      `POST :create through core facade → gateway → models subgraph (validation of the shared assessment + idempotent insert), ${prefix === 'pg' ? 'PostgreSQL' : 'SQLite'}, ` +
      `distinct keys and ids, 20 connections, 8 s after 2 s warm-up; p50 ${result.p50} ms p99 ${result.p99} ms; ` +
      `:validate of the same payload alone in the same run: ${round(validation.rps, 0)} req/s, p99 ${validation.p99} ms`;
    return [
      { id: `records.${prefix}.create.per_s`, value: round(result.rps, 0), unit: 'req/s', better: 'higher', note },
      { id: `records.${prefix}.create.p99_ms`, value: result.p99, unit: 'ms', better: 'lower', note },
    ];
  } finally {
    await system.stop();
  }
}

// Databases -----------------------------------------------------------------------------------------

export async function postgresUp(): Promise<boolean> {
  try {
    await onPostgres(POSTGRES_ADMIN_URL, 'SELECT 1');
    return true;
  } catch (error) {
    console.warn(`records bench: PostgreSQL figures skipped, ${POSTGRES_ADMIN_URL} unreachable (${(error as Error).message})`);
    return false;
  }
}

export async function withPostgres<T>(use: (url: string) => Promise<T>): Promise<T> {
  const name = `records_bench_${randomUUID().replace(/-/g, '')}`;
  await onPostgres(POSTGRES_ADMIN_URL, `CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    return await use(url.toString());
  } finally {
    await onPostgres(POSTGRES_ADMIN_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

async function withSqlite<T>(use: (url: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'records-bench-'));
  try {
    return await use(`file:${path.join(dir, 'records.db')}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function onPostgres(url: string, sql: string, values: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows;
  } finally {
    await client.end();
  }
}
