import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Figure, round } from './figures.js';
import { type Comparison, type LoadRequest, compareLoads } from './load.js';
import { type ServerProcess, benchCpuMs, startServerProcess } from './processes.js';
import { LOCAL_BENCH_ENV, calculationArtifactHost } from './fixtures.js';
import { projectPath } from '../kernel/project.js';
import { wrkAvailable } from './wrk.js';
import { VARIED_VERSIONS } from './gateway.bench.js';

const ROUNDS = 5;
const SECONDS = 5;
const MODEL = 're-indicators-specification';
const SAMPLE = projectPath('examples', 'models', MODEL);

/**
 * The local profile's model (its artifacts from the project's own files) and the gateway bench's
 * 100 stand-in versions of it (catalog entries without artifacts, whose questionnaire is 0.0.4's,
 * served by `calculationArtifactHost` from the same files): no shared data needed.
 */
function catalog(): Record<string, string> {
  const entries = [{ model: MODEL, version: '0.0.4', base_url: `${pathToFileURL(SAMPLE).href}/0.0.4/` }, ...VARIED_VERSIONS.map((version) => ({ model: MODEL, version }))];
  return { REGISTRY_CATALOG_JSON: JSON.stringify(entries), REGISTRY_ALLOW_FILE_URLS: 'true' };
}

/** A query over the three subgraphs: the questionnaire (an entity fetch), the registry's and impact's health. */
const GATEWAY_QUERY: LoadRequest = {
  method: 'POST',
  path: '/graphql',
  body: {
    query:
      'query Passport($model: String!, $version: String!) { modelVersion(model: $model, version: $version) { label indicatorSpecifications { id parameters { id questions { id answers { id score } } } } } health { registry { status } impact { status } } }',
    variables: { model: MODEL, version: '0.0.4' },
  },
};
/** The same query over the 100 stand-in versions round-robin: requests in flight share no subgraph fetch. */
const VARIED_QUERY: LoadRequest = { ...GATEWAY_QUERY, variableSets: VARIED_VERSIONS.map((version) => ({ model: MODEL, version })) };

const CEILING = "the highest WORKERS=2 ÷ WORKERS=1 the machine allows: its CPUs ÷ the CPU an answer costs with two workers (theirs, wrk's and the bench process's, from /proc), ÷ one worker's rate";

/**
 * The answers a second the machine's CPUs allow at the two-worker side's cost per answer: its
 * server's CPU, the load generator's and the bench process's (`sharedCpuMs`), every CPU busy.
 */
function workersCeiling(c: Comparison<'one' | 'two'>): number {
  const { cpuMs, sharedCpuMs } = c.sides.two;
  return (os.cpus().length * 1000) / (cpuMs + sharedCpuMs);
}

const ceiling = (c: Comparison<'one' | 'two'>) => round(workersCeiling(c) / c.sides.one.result.rps, 2);
const micros = (ms: number) => round(ms * 1000, 0);

/** A load's ceiling (`workersCeiling`) and the server's CPU per answer at two workers ÷ one. */
function cpuFigures(prefix: string, what: string, c: Comparison<'one' | 'two'>, note: string): Figure[] {
  return [
    { id: `scale.workers_2_vs_1.${prefix}_ceiling`, value: ceiling(c), unit: 'x', better: 'higher', note: `${what}: ${CEILING}; ${note}` },
    {
      id: `scale.workers_2_vs_1.${prefix}_cpu_per_answer_ratio`,
      value: round(c.sides.two.cpuMs / c.sides.one.cpuMs, 2),
      unit: 'x',
      better: 'lower',
      note: `${what}: the server's CPU per answer (the primary and its workers, user + system from /proc), WORKERS=2 ÷ WORKERS=1, 1 when a second worker costs nothing; ${note}`,
    },
  ];
}

/**
 * Issue 16's "every core": the same system with WORKERS=2 and WORKERS=1 side by side, rounds
 * interleaved, on `GET /models` and on the gateway query; and the gateway query's tail with every
 * worker (p99 ÷ p50 at 20 connections). The headline gateway figures send varied requests (100
 * variable sets), as the gateway bench does; identical requests, which share executions in flight,
 * are reported beside them. The load generator runs on the same machine as the workers, so it is wrk
 * (bench/wrk.ts): with autocannon, which spends about as much CPU per `GET /models` answer as one
 * worker does, two workers on two CPUs measured 0.95× one (22,000 req/s both: the generator was the
 * limit). Even wrk takes its share of the two CPUs, so the ratio has a ceiling below 2, reported
 * beside it (`*_ceiling`, from the CPU each process spends per answer: bench/PROFILE.md, "Workers").
 * Without wrk the figures are skipped with a message.
 */
export async function benchWorkers(): Promise<Figure[]> {
  if (!wrkAvailable()) {
    console.warn('scale.workers figures skipped: wrk not found (apt-get install wrk)');
    return [];
  }
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-workers-bench-'));
  const artifacts = await calculationArtifactHost(path.join(SAMPLE, '0.0.4'));
  const processes: ServerProcess[] = [];
  const start = async (workers: number) => {
    const server = await startServerProcess(`workers-${workers}`, {
      NODE_ENV: 'production',
      ...LOCAL_BENCH_ENV,
      ...catalog(),
      ...artifacts.env,
      DATABASE_URL: `file:${path.join(workspace, `records-${workers}.db`)}`,
      WORKERS: String(workers),
    });
    processes.push(server);
    return server;
  };
  try {
    const one = await start(1);
    const two = await start(2);
    const sides = (listener: string) => ({ one: `http://127.0.0.1:${one.ports[listener]}`, two: `http://127.0.0.1:${two.ports[listener]}` });
    const cpuMs = { one: () => one.cpuMs(), two: () => two.cpuMs() };
    const compare = (request: LoadRequest, listener: string) => compareLoads(request, sides(listener), { rounds: ROUNDS, seconds: SECONDS, generator: 'wrk', cpuMs, sharedCpuMs: benchCpuMs });
    const models = await compare({ method: 'GET', path: '/models' }, 'core');
    const varied = await compare(VARIED_QUERY, 'gateway');
    const identical = await compare(GATEWAY_QUERY, 'gateway');
    for (const comparison of [models, varied, identical]) {
      for (const [name, side] of Object.entries(comparison.sides)) {
        if (side.result.errors > 0 || side.result.non2xx > 0) throw new Error(`workers ${name}: ${side.result.errors} errors, ${side.result.non2xx} non-2xx answers`);
      }
    }
    const ratio = (c: Comparison<'one' | 'two'>) => round(c.sides.two.result.rps / c.sides.one.result.rps, 2);
    const rates = (what: string, c: Comparison<'one' | 'two'>) => `${what} ${round(c.sides.one.result.rps, 0)} → ${round(c.sides.two.result.rps, 0)} req/s (${ratio(c)}x)`;
    const cpu = (what: string, c: Comparison<'one' | 'two'>) =>
      `${what} ${micros(c.sides.one.cpuMs)} → ${micros(c.sides.two.cpuMs)} µs of the server's CPU an answer, wrk and the bench ${micros(c.sides.two.sharedCpuMs)} µs, ceiling ${ceiling(c)}x`;
    const tail = (c: Comparison<'one' | 'two'>) => round(c.sides.two.result.p99 / c.sides.two.result.p50, 2);
    const note =
      `median of ${ROUNDS} alternating ${SECONDS} s rounds, 20 connections, ${os.cpus().length} CPUs shared with the load generator (wrk, one thread); ` +
      `${rates('GET /models', models)}, ${rates('gateway query, varied', varied)}, ${rates('gateway query, identical', identical)}; ` +
      `${cpu('GET /models', models)}; ${cpu('varied', varied)}`;
    const latencies = (c: Comparison<'one' | 'two'>) => `p50 ${c.sides.two.result.p50} ms, p99 ${c.sides.two.result.p99} ms`;
    return [
      {
        id: 'scale.workers_2_vs_1.rps_ratio',
        value: Math.min(ratio(models), ratio(varied)),
        unit: 'x',
        better: 'higher',
        target: 1.7,
        note: `the lower of GET /models and the gateway query (varied), WORKERS=2 ÷ WORKERS=1; ${note}`,
      },
      { id: 'scale.workers_2_vs_1.models_rps_ratio', value: ratio(models), unit: 'x', better: 'higher', note },
      ...cpuFigures('models', 'GET /models', models, note),
      ...cpuFigures('gateway', 'varied requests', varied, note),
      { id: 'scale.workers_2_vs_1.gateway_rps_ratio', value: ratio(varied), unit: 'x', better: 'higher', note: `varied requests; ${note}` },
      { id: 'scale.workers_2_vs_1.gateway_identical_rps_ratio', value: ratio(identical), unit: 'x', better: 'higher', note: `identical requests; ${note}` },
      { id: 'scale.p99_over_p50', value: tail(varied), unit: 'x', better: 'lower', target: 3, note: `the gateway query (varied) at 20 connections with WORKERS=2: ${latencies(varied)}; ${note}` },
      {
        id: 'scale.p99_over_p50_identical',
        value: tail(identical),
        unit: 'x',
        better: 'lower',
        note: `the gateway query (identical) at 20 connections with WORKERS=2: ${latencies(identical)}; ${note}`,
      },
    ];
  } finally {
    for (const server of processes) await server.stop();
    artifacts.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}
