import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../database/database.js';
import { DEFAULT_DATABASE_LIMITS } from '../database/limits.js';
import { openRecordStore } from '../subgraphs/models/store/open-store.js';
import { parseRecordFilter } from '../kernel/records/record-filter.js';
import { type Figure, percentile, round } from './figures.js';
import { load } from './load.js';
import { publishedCatalogEntry, sharedAssessment, sharedDataPresent, startBenchSystem } from './fixtures.js';
import { MODEL_VERSION, OWNER, QUERIES, explain, insertAssessments, postgresUp, timeQuery, withPostgres } from './records.bench.js';

const PARAMETER_COUNTS = [1, 10, 100];
const TABLE_SIZES = [10_000, 100_000, 1_000_000];
const DOMAIN_RUNS = 200;

/**
 * Cost growth, as series:
 * - `growth.validate.*.params_<n>`: `:validate` of an assessment with n parameter assessments (the
 *   shared one's four, repeated), one connection, through the facade and at the domain;
 * - `growth.query.<shape>.p50_ms.records_<n>`: the records bench's three `:query` shapes at the store
 *   on one PostgreSQL table grown 10k → 100k → 1M assessments (bulk insertion of records.bench.ts).
 */
export async function benchGrowth(only?: string): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('growth bench skipped: ../shared/data is absent');
    return [];
  }
  const wanted = (prefix: string) => !only || prefix.startsWith(only) || only.startsWith(prefix);
  const figures: Figure[] = [];
  if (wanted('growth.validate')) figures.push(...(await validationGrowth()));
  if (wanted('growth.query')) {
    if (await postgresUp()) figures.push(...(await withPostgres(queryGrowth)));
    else console.warn('growth bench: query series skipped, PostgreSQL unreachable');
  }
  return figures;
}

/** The shared assessment with `count` parameter assessments: its own four, repeated in order. */
function assessmentWith(count: number): Record<string, unknown> {
  const base = sharedAssessment() as { parameter_assessments: unknown[] };
  const own = base.parameter_assessments;
  return { ...base, parameter_assessments: Array.from({ length: count }, (_, i) => own[i % own.length]) };
}

async function validationGrowth(): Promise<Figure[]> {
  const system = await startBenchSystem({ REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry('Assessment')]) });
  const registry = system.services.models!.registry;
  const base = `http://127.0.0.1:${system.ports.core}`;
  const figures: Figure[] = [];
  try {
    for (const count of PARAMETER_COUNTS) {
      const payload = assessmentWith(count);
      const bytes = Buffer.byteLength(JSON.stringify({ payload }));
      const report = await registry.validate(MODEL_VERSION.model, MODEL_VERSION.version, payload);
      const violations = report.results.reduce((sum, r) => sum + r.violations.length, 0);
      const request = { method: 'POST' as const, path: `/models/${MODEL_VERSION.model}/versions/${MODEL_VERSION.version}:validate`, body: { payload } };
      await load(base, request, { connections: 1, seconds: 2 });
      const facade = await load(base, request, { connections: 1, seconds: 5 });
      if (facade.errors > 0 || facade.non2xx > 0) throw new Error(`growth.validate params_${count}: ${facade.errors} errors, ${facade.non2xx} non-2xx`);
      const domain = await domainP50(() => registry.validate(MODEL_VERSION.model, MODEL_VERSION.version, payload));
      const what = `${count} parameter assessments (${bytes} bytes of request body, ${violations} violations in the report)`;
      figures.push(
        {
          id: `growth.validate.p50_ms.params_${count}`,
          value: facade.p50,
          unit: 'ms',
          better: 'lower',
          note: `POST :validate through the core facade, one connection, 5 s, p50; ${what}; p99 ${facade.p99} ms`,
        },
        {
          id: `growth.validate.domain_p50_ms.params_${count}`,
          value: round(domain, 2),
          unit: 'ms',
          better: 'lower',
          note: `ModelRegistry.validate (JSON Schema + SHACL + OWL) in process, p50 of ${DOMAIN_RUNS} runs; ${what}`,
        },
      );
    }
    return figures;
  } finally {
    await system.stop();
  }
}

async function domainP50(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await run();
  const durations: number[] = [];
  for (let i = 0; i < DOMAIN_RUNS; i++) {
    const started = performance.now();
    await run();
    durations.push(performance.now() - started);
  }
  return percentile(durations, 50);
}

/** One table grown in steps; after each step, every query shape at the store. */
async function queryGrowth(url: string): Promise<Figure[]> {
  const store = await openRecordStore(await openDatabase(url, { limits: DEFAULT_DATABASE_LIMITS }));
  const figures: Figure[] = [];
  try {
    let loaded = 0;
    for (const size of TABLE_SIZES) {
      const loadMs = await insertAssessments('postgresql', url, size, loaded);
      loaded = size;
      const label = size >= 1_000_000 ? `${size / 1_000_000}m` : `${size / 1000}k`;
      for (const query of QUERIES) {
        const filter = parseRecordFilter(query.filter);
        const { p50, runs, found } = await timeQuery(() => store.queryRecords(filter, OWNER, MODEL_VERSION));
        figures.push({
          id: `growth.query.${query.name}.p50_ms.records_${label}`,
          value: round(p50, 2),
          unit: 'ms',
          better: 'lower',
          note:
            `store.queryRecords on PostgreSQL with ${size} assessments (one table grown 10k → 100k → 1M; this step's insert + VACUUM ANALYZE ${round(loadMs / 1000, 1)} s), ` +
            `${query.what.replace(/\(\d+ matches\)|\(about 10% match\)/, '').trim()}, limit 100, ${found} returned; p50 of ${runs} warm runs ` +
            `(1-min load average ${round(os.loadavg()[0], 1)} on ${os.cpus().length} CPUs). Plan: ${await explain('postgresql', url, query.filter)}`,
        });
      }
    }
    return figures;
  } finally {
    await store.close();
  }
}
