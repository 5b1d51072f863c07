import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../kernel/project.js';
import { type Figure, round } from './figures.js';
import { compareSettings, describeComparison } from './setting-comparison.js';
import { startServerProcess } from './processes.js';
import { LOCAL_BENCH_ENV } from './fixtures.js';

const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
const ENV = {
  ...LOCAL_BENCH_ENV,
  REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: SAMPLE }]),
  REGISTRY_ALLOW_FILE_URLS: 'true',
  BACKGROUND_PROJECT_DIR: projectPath('examples', 'brightway-project'),
};
// As the budget bench (budget.bench.ts): two systems in one process, many short rounds in turns, paired, each setting in both places.
const ROUNDS = 64;
const SECONDS = 3;
const WARM_UP_SECONDS = 10;
// Then rounds in turns, left out: the pace still rises for a minute (setting-comparison.ts).
const WARM_UP_ROUNDS = 8;
const DOCUMENTS = 100_000;
const FLOOD_WARM_UP = 20_000;

/**
 * Issue 25's figures. `usage.gateway_overhead.rps_ratio`: the gateway (one process each) with usage
 * reporting on ÷ off, varied requests (variable sets, two named clients), two systems in one process loaded in turns.
 * `usage.distinct_documents_memory_mb`: RSS growth of a gateway over 100,000 distinct documents (distinctDocuments).
 * `schema_check.with_usage.seconds`: `schema:check` with an exported usage file of 1,000 operations × 20 clients.
 */
export async function benchUsage(): Promise<Figure[]> {
  return inTemporaryDir(async (dir) => [await overhead(dir), ...(await distinctDocuments(dir))]);
}

export async function benchSchemaCheck(): Promise<Figure[]> {
  return inTemporaryDir(async (dir) => [schemaCheckWithUsage(dir)]);
}

async function inTemporaryDir(run: (dir: string) => Promise<Figure[]>): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'usage-bench-'));
  try {
    return await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function overhead(dir: string): Promise<Figure> {
  const side = (name: string, env: Record<string, string> = {}) => ({ ...ENV, DATABASE_URL: `file:${path.join(dir, `${name}.db`)}`, ...env });
  const comparison = await compareSettings('usage', {
    on: side('on'),
    off: side('off', { USAGE_REPORTING: 'false' }),
    request: {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', 'graphql-client-name': 'bench', 'graphql-client-version': '1' },
      body: { query: 'query V($m: String!, $v: String!) { modelVersion(model: $m, version: $v) { model version label } modelVersionCount }', variables: {} },
      variableSets: Array.from({ length: 16 }, (_, i) => ({ m: i % 2 ? 're-indicators-specification' : `missing-${i}`, v: '0.0.4' })),
    },
    rounds: ROUNDS,
    seconds: SECONDS,
    warmUpSeconds: WARM_UP_SECONDS,
    warmUpRounds: WARM_UP_ROUNDS,
  });
  return {
    id: 'usage.gateway_overhead.rps_ratio',
    value: round(comparison.ratio, 3),
    unit: 'ratio',
    target: 0.97,
    better: 'higher',
    note:
      `gateway answers/s with usage reporting on ÷ off, 16 variable sets, two systems in one process (NODE_ENV=production; bench/setting-comparison.ts), load generator ${comparison.generator}, ` +
      `${ROUNDS} rounds of ${SECONDS} s on each, half with usage on as the pair's first system and half as its second (a pair process each, ${WARM_UP_SECONDS} s of warm-up each, then ${WARM_UP_ROUNDS} rounds in turns left out), in turns, the order reversed every other round; ` +
      `the geometric mean of the two placements' trimmed means of pairs of rounds: ${describeComparison(comparison)}`,
  };
}

/**
 * A flood of distinct documents on one gateway: its RSS over the flood, from a process that has
 * already served `FLOOD_WARM_UP` requests of one document at the flood's rate. Those are where V8
 * sizes its heap for that allocation rate (a cold process grows by 70 to 200 MB there, whatever the
 * documents: bench/PROFILE.md, "How the flood's memory is measured"); what distinct documents add
 * to a serving process (the document and plan caches, usage's coordinates and counts) is all in the
 * figure, as none of them were seen before it.
 */
async function distinctDocuments(dir: string): Promise<Figure[]> {
  const server = await startServerProcess('usage-flood', { ...ENV, DATABASE_URL: `file:${path.join(dir, 'flood.db')}` });
  try {
    const url = `http://127.0.0.1:${server.ports.gateway}/graphql`;
    const send = async (query: string, client: number) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'graphql-client-name': `c${client % 20}` },
        body: JSON.stringify({ query }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`usage flood: ${query} answered ${response.status}`);
    };
    const flood = async (count: number, document: (i: number) => string, sample: () => void = () => undefined) => {
      for (let i = 0; i < count; i += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, j) => send(document(i + j), i + j)));
        if (i % 10_000 === 0) sample();
      }
    };
    const serving = 'query Serving { modelVersionCount }';
    for (let i = 0; i < 2_000; i += 1) await send(serving, i); // caches and pools at their working size
    const cold = server.rssMb();
    await flood(FLOOD_WARM_UP, () => serving);
    const before = server.rssMb();
    let peak = before;
    await flood(
      DOCUMENTS,
      (i) => `query Q${i} { modelVersionCount }`,
      () => (peak = Math.max(peak, server.rssMb())),
    );
    await new Promise((resolve) => setTimeout(resolve, 12_000)); // the last batch written
    const after = server.rssMb();
    const setting = `one process, SQLite, usage on (USAGE_MAX_ENTRIES default), 50 requests in flight, 20 clients`;
    return [
      {
        id: 'usage.distinct_documents_memory_mb',
        value: round(after - before, 1),
        unit: 'MB',
        target: 50,
        better: 'lower',
        note:
          `gateway RSS growth over ${DOCUMENTS} distinct documents, from the process after ${FLOOD_WARM_UP} requests of one document at the same rate (${setting}); ` +
          `before ${round(before, 0)} MB, highest sampled every 10,000 ${round(peak, 0)} MB, after ${round(after, 0)} MB`,
      },
      {
        id: 'usage.distinct_documents_warm_up_mb',
        value: round(before - cold, 1),
        unit: 'MB',
        better: 'lower',
        note: `gateway RSS growth over ${FLOOD_WARM_UP} requests of one document at the flood's rate, after 2,000 one at a time (${setting}): ${round(cold, 0)} → ${round(before, 0)} MB, V8 sizing its heap for the rate`,
      },
    ];
  } finally {
    await server.stop();
  }
}

function schemaCheckWithUsage(dir: string): Figure {
  const day = new Date().toISOString().slice(0, 10);
  const operations = Array.from({ length: 1_000 }, (_, i) => {
    const body = `query Op${i} { modelVersions { model version label } modelVersionCount }`;
    return {
      hash: createHash('sha256').update(body).digest('hex'),
      name: `Op${i}`,
      type: 'query',
      body,
      coordinates: ['Query', 'Query.modelVersions', 'ModelVersion', 'ModelVersion.model', 'ModelVersion.version', 'ModelVersion.label', 'Query.modelVersionCount', 'Int', 'String'],
    };
  });
  const counts = operations.flatMap((o) =>
    Array.from({ length: 20 }, (_, c) => ({ hash: o.hash, client: `client-${c}`, clientVersion: '1.0.0', day, inputs: [], count: 10 + c, lastSeenMs: Date.now() })),
  );
  const file = path.join(dir, 'usage.json');
  writeFileSync(file, JSON.stringify({ format: 'cerise-usage-export', version: 1, from: day, exportedAt: new Date().toISOString(), operations, counts }));
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [projectPath('dist', 'server', 'schema-check.js'), '--usage-file', file], {
    cwd: projectPath(),
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  if (run.status !== 0) throw new Error(`schema:check exited ${run.status}: ${run.stdout}${run.stderr}`);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    id: 'schema_check.with_usage.seconds',
    value: round(seconds, 2),
    unit: 's',
    target: 15,
    better: 'lower',
    note: 'node dist/server/schema-check.js --usage-file with 1,000 operations × 20 clients (20,000 counts): composition, diff with usage, every operation validated',
  };
}
