import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { type Figure, round } from './figures.js';
import { type LoadRequest, compareLoads } from './load.js';
import { type ServerProcess, startServerProcess } from './processes.js';
import { LOCAL_BENCH_ENV } from './fixtures.js';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../kernel/project.js';

const ROUNDS = 3;
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification')).href;

/** The local profile's model: its artifacts from the project's own files, nothing fetched. */
const LOCAL_MODEL = {
  REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: `${SAMPLE}/0.0.4/` }]),
  REGISTRY_ALLOW_FILE_URLS: 'true',
  ARTIFACT_BASE_URL_TEMPLATE: `${SAMPLE}/{version}/`,
};
const SECONDS = 5;

/** A query over the three subgraphs that every worker answers alike (the local profile's model). */
const GATEWAY_QUERY: LoadRequest = {
  method: 'POST',
  path: '/graphql',
  body: {
    query:
      'query Passport($model: String!, $version: String!) { modelVersion(model: $model, version: $version) { label indicatorSpecifications { id parameters { id questions { id answers { id score } } } } } health { registry { status } impact { status } } }',
    variables: { model: 're-indicators-specification', version: '0.0.4' },
  },
};

/**
 * Issue 16's "every core": the same system with WORKERS=2 and WORKERS=1 side by side, rounds
 * interleaved, on `GET /models` and on the gateway query; and the gateway query's tail with every
 * worker (p99 ÷ p50 at 20 connections). The load generator runs on the same machine as the workers.
 */
export async function benchWorkers(): Promise<Figure[]> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-workers-bench-'));
  const processes: ServerProcess[] = [];
  const start = async (workers: number) => {
    const server = await startServerProcess(`workers-${workers}`, {
      NODE_ENV: 'production',
      ...LOCAL_BENCH_ENV,
      ...LOCAL_MODEL,
      DATABASE_URL: `file:${path.join(workspace, `records-${workers}.db`)}`,
      WORKERS: String(workers),
    });
    processes.push(server);
    return server;
  };
  try {
    const one = await start(1);
    const two = await start(2);
    const at = (server: ServerProcess, listener: string) => `http://127.0.0.1:${server.ports[listener]}`;
    const models = await compareLoads({ method: 'GET', path: '/models' }, { one: at(one, 'core'), two: at(two, 'core') }, { rounds: ROUNDS, seconds: SECONDS });
    const graph = await compareLoads(GATEWAY_QUERY, { one: at(one, 'gateway'), two: at(two, 'gateway') }, { rounds: ROUNDS, seconds: SECONDS });
    for (const comparison of [models, graph]) {
      for (const [name, side] of Object.entries(comparison.sides)) {
        if (side.result.errors > 0 || side.result.non2xx > 0) throw new Error(`workers ${name}: ${side.result.errors} errors, ${side.result.non2xx} non-2xx answers`);
      }
    }
    const ratio = (c: typeof models) => round(c.sides.two.result.rps / c.sides.one.result.rps, 2);
    const note =
      `median of ${ROUNDS} alternating ${SECONDS} s rounds, 20 connections, ${os.cpus().length} CPUs shared with the load generator; ` +
      `GET /models ${round(models.sides.one.result.rps, 0)} → ${round(models.sides.two.result.rps, 0)} req/s (${ratio(models)}x), ` +
      `gateway query ${round(graph.sides.one.result.rps, 0)} → ${round(graph.sides.two.result.rps, 0)} req/s (${ratio(graph)}x)`;
    const tail = graph.sides.two.result;
    return [
      { id: 'scale.workers_2_vs_1.rps_ratio', value: Math.min(ratio(models), ratio(graph)), unit: 'x', better: 'higher', target: 1.7, note: `the lower of GET /models and the gateway query, WORKERS=2 ÷ WORKERS=1; ${note}` },
      { id: 'scale.workers_2_vs_1.models_rps_ratio', value: ratio(models), unit: 'x', better: 'higher', note },
      { id: 'scale.workers_2_vs_1.gateway_rps_ratio', value: ratio(graph), unit: 'x', better: 'higher', note },
      {
        id: 'scale.p99_over_p50',
        value: round(tail.p99 / tail.p50, 2),
        unit: 'x',
        better: 'lower',
        target: 3,
        note: `the gateway query at 20 connections with WORKERS=2: p50 ${tail.p50} ms, p99 ${tail.p99} ms; ${note}`,
      },
    ];
  } finally {
    for (const server of processes) await server.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}
