import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Figure, round } from './figures.js';
import { type LoadRequest, type LoadResult, load } from './load.js';
import { calculationArtifactHost, computeRequest, publishedCatalogEntry, sharedAssessment, sharedDataPresent, startBenchSystem } from './fixtures.js';

const SECONDS = 15;

/**
 * `memory.rss_mb.after_load`: the whole system in this process (catalog of the published 0.0.4 model
 * without a root class, so that `/compute` payloads validate), under a mixed load for 15 s:
 * `:validate` (6 connections), `GET /models` (4), `:query` (4) on the core facade and `/compute`
 * (6) on the indicator facade, at once, each from its own load-generator process. RSS and heap are
 * read one second after the load ends; the figures before the load are reported beside.
 */
export async function benchMemory(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('memory bench skipped: ../shared/data is absent');
    return [];
  }
  const artifacts = await calculationArtifactHost();
  const system = await startBenchSystem({ REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry()]), ...artifacts.env });
  try {
    const core = `http://127.0.0.1:${system.ports.core}`;
    const indicators = `http://127.0.0.1:${system.ports.indicators}`;
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${core}/models/re-indicators-specification/versions/0.0.4:create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `memory-bench-${i}` },
        body: JSON.stringify({ payload: { ...sharedAssessment(), id: `assessment-memory-${i}` } }),
      });
      if (response.status !== 200) throw new Error(`:create answered ${response.status}`);
    }
    const before = usage();
    const mixed: Array<[string, string, LoadRequest, number]> = [
      ['validate', core, { method: 'POST', path: '/models/re-indicators-specification/versions/0.0.4:validate', body: { payload: sharedAssessment() } }, 6],
      ['models', core, { method: 'GET', path: '/models' }, 4],
      ['query', core, { method: 'POST', path: '/models/re-indicators-specification/versions/0.0.4:query', body: { filter: { limit: 20 } } }, 4],
      ['compute', indicators, { method: 'POST', path: '/compute', body: computeRequest() }, 6],
    ];
    const results = await Promise.all(mixed.map(([, base, request, connections]) => load(base, request, { connections, seconds: SECONDS })));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = usage();
    const retained = usage(true);
    const served = results.map((r: LoadResult, i) => `${mixed[i]![0]} ${round(r.rps, 0)} req/s${r.non2xx || r.errors ? ` (${r.non2xx + r.errors} failed)` : ''}`).join(', ');
    const note = (what: string) =>
      `${what}; whole system in this process, mixed load for ${SECONDS} s at 20 connections in all (${served}); before the load: RSS ${before.rss} MB, heap ${before.heap} MB`;
    return [
      { id: 'memory.rss_mb.after_load', value: after.rss, unit: 'MB', better: 'lower', note: note('RSS after the mixed-load run') },
      { id: 'memory.heap_mb.after_load', value: after.heap, unit: 'MB', better: 'lower', note: note('V8 heap used after the mixed-load run, garbage not yet collected included') },
      { id: 'memory.heap_mb.after_load_gc', value: retained.heap, unit: 'MB', better: 'lower', note: note('V8 heap used after the mixed-load run and a full GC (what the load left retained)') },
      { id: 'memory.rss_mb.before_load', value: before.rss, unit: 'MB', better: 'lower', note: note('RSS after start-up and 50 :create, before the mixed load') },
    ];
  } finally {
    await system.stop();
    artifacts.close();
  }
}

function usage(collect = false): { rss: number; heap: number } {
  if (collect) {
    // A full collection without starting node with --expose-gc.
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  }
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: round(rss / 2 ** 20, 0), heap: round(heapUsed / 2 ** 20, 0) };
}
