import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Figure, percentile, round } from './figures.js';
import { LOCAL_BENCH_ENV } from './fixtures.js';
import { startServerProcess } from './processes.js';

/**
 * Issue 13, item 2: any document under the body limit is answered or refused in well under a second,
 * and the process keeps serving meanwhile. Before GRAPHQL_MAX_TOKENS and GRAPHQL_MAX_FIELDS, the
 * first document below took 54 s to validate and stalled every port. Documents are made unique per
 * request (a comment), so none is answered from a cache.
 */
const HOSTILE_DOCUMENTS: Record<string, (n: number) => string> = {
  // the issue's: 155 KB, refused by its tokens
  repeated_selection_5000: () => `{${' modelVersions { model version label }'.repeat(5000)} }`,
  // the worst each limit lets through to validation (defaults: 3,000 tokens, 500 fields)
  repeated_scalar_500: () => `{${' modelVersionCount'.repeat(500)} }`,
  repeated_selection_250: () => `{${' modelVersions { model }'.repeat(250)} }`,
  fragments_330: () => `${Array.from({ length: 330 }, (_, i) => `fragment F${i} on Query { modelVersionCount }`).join(' ')} {${Array.from({ length: 330 }, (_, i) => ` ...F${i}`).join('')} }`,
  // under the 1 MiB body limit: one string of 900 KB
  long_string: () => `{ modelVersion(model: "${'x'.repeat(900_000)}", version: "1") { model } }`,
};
const ROUNDS = 5;

export async function benchGraphqlLimits(): Promise<Figure[]> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-graphql-limits-'));
  const server = await startServerProcess('graphql-limits', { ...LOCAL_BENCH_ENV, REGISTRY_CATALOG_JSON: '[]', DATABASE_URL: `file:${path.join(workspace, 'records.db')}` });
  const graphql = `http://127.0.0.1:${server.ports.gateway}/graphql`;
  const health = `http://127.0.0.1:${server.ports.core}/admin/health`;
  try {
    const worst: Array<{ name: string; ms: number; status: number }> = [];
    for (const [name, make] of Object.entries(HOSTILE_DOCUMENTS)) {
      const timings: number[] = [];
      let status = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const started = performance.now();
        status = (await post(graphql, `${make(round)}\n# ${name} ${round}`)).status;
        timings.push(performance.now() - started);
      }
      worst.push({ name, ms: percentile(timings, 50), status });
    }
    const healthDuring = await healthWhile(health, async (n) => {
      await post(graphql, `${HOSTILE_DOCUMENTS.repeated_scalar_500!(n)}\n# during ${n}`);
    });
    const slowest = worst.reduce((a, b) => (b.ms > a.ms ? b : a));
    return [
      {
        id: 'graphql.hostile_document.max_p50_ms',
        value: round(slowest.ms, 1),
        unit: 'ms',
        target: 500,
        better: 'lower',
        note: `the slowest of ${worst.length} hostile documents (median of ${ROUNDS} each, answer status in brackets): ${worst.map((w) => `${w.name} ${round(w.ms, 1)} ms [${w.status}]`).join(', ')}`,
      },
      {
        id: 'graphql.health_during_hostile.p99_ms',
        value: round(percentile(healthDuring, 99), 1),
        unit: 'ms',
        target: 250,
        better: 'lower',
        note: `GET /admin/health answered ${healthDuring.length} times (p50 ${round(percentile(healthDuring, 50), 1)} ms) while documents of 500 repeated fields (the most the defaults let through to validation) were sent back to back`,
      },
    ];
  } finally {
    await server.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

function post(url: string, query: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) }).then(async (response) => {
    await response.arrayBuffer();
    return response;
  });
}

/** Health latencies, one probe every 20 ms for three seconds, while `hostile` runs back to back. */
async function healthWhile(health: string, hostile: (n: number) => Promise<void>): Promise<number[]> {
  let running = true;
  const attack = (async () => {
    for (let n = 0; running; n++) await hostile(n);
  })();
  const latencies: number[] = [];
  try {
    for (const end = Date.now() + 3000; Date.now() < end; ) {
      const started = performance.now();
      await (await fetch(health)).arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    running = false;
    await attack;
  }
  return latencies;
}
