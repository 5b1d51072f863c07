import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Figure, round } from './figures.js';
import { type LoadRequest, type LoadResult, load } from './load.js';
import { PUBLISHED_0_0_4, SHARED_DATA, publishedCatalogEntry, sharedDataPresent, startBenchSystem } from './fixtures.js';

const WARM_UP_SECONDS = 2;
const MEASURED_SECONDS = 8;

/**
 * `POST /compute` of the published 0.0.4 model, warm, through the indicator facade (facade →
 * gateway → indicators subgraph → this process's core facade for the delegated validation). The
 * calculation artifact comes from a local HTTP host that counts fetches. The comparison with a
 * bare route (`facade.compute.*`) is in facade.bench.ts.
 */
export async function benchIndicators(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('indicators bench skipped: ../shared/data is absent');
    return [];
  }
  const artifacts = await countingArtifactHost(readFileSync(path.join(PUBLISHED_0_0_4, 'calculation.json')));
  const system = await startBenchSystem({
    // No root_class: a compute payload is not a whole Assessment (DECISIONS section 5).
    REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry()]),
    ARTIFACT_BASE_URL_TEMPLATE: `${artifacts.url}/{version}/`,
  });
  try {
    const request: LoadRequest = { method: 'POST', path: '/compute', body: computeRequest() };
    const facade = `http://127.0.0.1:${system.ports.indicators}`;
    await load(facade, request, { seconds: WARM_UP_SECONDS });
    const fetchesBefore = artifacts.fetches();
    const measured = await load(facade, request, { seconds: MEASURED_SECONDS });
    requireClean(measured);
    return figures(measured, artifacts.fetches() - fetchesBefore);
  } finally {
    await system.stop();
    artifacts.server.close();
  }
}

function figures(facade: LoadResult, fetches: number): Figure[] {
  const note = (what: string) =>
    `${what}; published 0.0.4, compute-request-recycle-battery, delegated validation by this process's core, 20 connections, ` +
    `${MEASURED_SECONDS} s after ${WARM_UP_SECONDS} s warm-up, load generator in its own process; facade p50 ${facade.p50} ms p99 ${facade.p99} ms`;
  return [
    { id: 'indicators.compute.per_s', value: round(facade.rps, 0), unit: 'req/s', better: 'higher', note: note('facade throughput') },
    { id: 'indicators.compute.p50_ms', value: facade.p50, unit: 'ms', better: 'lower', note: note('facade latency, p50') },
    { id: 'indicators.compute.p99_ms', value: facade.p99, unit: 'ms', better: 'lower', note: note('facade latency, p99') },
    {
      id: 'indicators.compute.artifact_fetches',
      value: fetches,
      unit: 'requests',
      target: 0,
      better: 'lower',
      note: note('calculation.json requests to the artifact host after warm-up (within the 60 s freshness window)'),
    },
  ];
}

/** The shared compute request: a real REcycle_Battery assessment for 0.0.4. */
function computeRequest(): unknown {
  return JSON.parse(readFileSync(path.join(SHARED_DATA, 're-indicators-calculation', 'compute-request-recycle-battery.json'), 'utf8'));
}

/** Serves `/<version>/calculation.json` for any version and counts the requests. */
async function countingArtifactHost(calculation: Buffer): Promise<{ server: Server; url: string; fetches(): number }> {
  let fetches = 0;
  const server = createServer((req, res) => {
    fetches += 1;
    if (!req.url?.endsWith('/calculation.json')) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(calculation);
  });
  return { ...(await listening(server.listen(0, '127.0.0.1'))), fetches: () => fetches };
}

async function listening(server: Server): Promise<{ server: Server; url: string }> {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function requireClean(...results: LoadResult[]): void {
  for (const r of results) if (r.errors > 0 || r.non2xx > 0) throw new Error(`indicators: ${r.errors} errors, ${r.non2xx} non-2xx answers under load`);
}
