import os from 'node:os';
import { ENTITY_LOOKUP_WEIGHT } from '../pipeline/limits/cost.js';
import { type Figure, percentile, round } from './figures.js';
import { LOCAL_BENCH_ENV, sharedDataPresent } from './fixtures.js';
import { startServerProcess } from './processes.js';
import { MODEL_VERSION, OWNER, insertAssessments, postgresUp, withPostgres } from './records.bench.js';

/** GRAPHQL_MAX_COST's default: a subgraph port's direct callers meet it. */
const MAX_COST = 50_000;
/** The largest `_entities` batch a direct caller may send: each representation costs ENTITY_LOOKUP_WEIGHT, `id` nothing more. */
const LARGEST = Math.floor(MAX_COST / ENTITY_LOOKUP_WEIGHT);
const ROUNDS = 9;
const CONCURRENT = 4;
const QUERY = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Record { id } } }';

/**
 * Issue 35, row 9: the largest `_entities` batch the cost limit accepts on a subgraph port, sent by a
 * direct caller to the models subgraph as `npm run serve` runs it in that role (two workers, every
 * default limit) on PostgreSQL, over that many stored assessments (1.9 KB payloads, read with each
 * record): its time alone (median and worst of ROUNDS after one warm-up), and CONCURRENT at once.
 * Before the batched reads each took 2.9 to 5.2 s (4,999 representations, a read each, in turn).
 */
export async function benchEntities(): Promise<Figure[]> {
  if (!(await postgresUp()) || !sharedDataPresent()) return [];
  return withPostgres(async (url) => {
    const server = await startServerProcess('entities-subgraph', {
      ...LOCAL_BENCH_ENV,
      DATABASE_URL: url,
      AUTH_NONE_SUBJECT: OWNER.subject,
      AUTH_NONE_TENANT: OWNER.tenant!,
      REGISTRY_CATALOG_JSON: JSON.stringify([MODEL_VERSION]),
      PROCESS_ROLE: 'subgraph',
      SUBGRAPH: 'models',
      SUBGRAPH_PORT: '0',
      GATEWAY_SUBGRAPH_SECRET: 'bench-entities-gateway-secret',
      WORKERS: '2',
    });
    try {
      // The server has migrated the database by now.
      await insertAssessments('postgresql', url, LARGEST);
      const port = `http://127.0.0.1:${server.ports['subgraph:models']}/graphql`;
      const batch = (size: number) => ({ r: Array.from({ length: size }, (_, i) => ({ __typename: 'Record', id: `assessment-${i}` })) });
      const refused = await timed(port, batch(LARGEST + 1));
      if (refused.status !== 400) throw new Error(`entities: ${LARGEST + 1} representations answered ${refused.status}, not refused`);
      const largest = batch(LARGEST);
      const alone: number[] = [];
      for (let round = 0; round <= ROUNDS; round++) {
        const { ms, status, found } = await timed(port, largest);
        if (status !== 200 || found !== LARGEST) throw new Error(`entities: ${LARGEST} representations answered ${status} with ${found} records`);
        if (round > 0) alone.push(ms);
      }
      const together = await Promise.all(Array.from({ length: CONCURRENT }, () => timed(port, largest)));
      const load = `1-min load average ${round(os.loadavg()[0]!, 1)} on ${os.cpus().length} CPUs`;
      const note = `${LARGEST} Record representations (\`{ id }\`, ${ENTITY_LOOKUP_WEIGHT} each: the most GRAPHQL_MAX_COST ${MAX_COST} accepts; ${LARGEST + 1} refused 400) to the models subgraph port, 2 workers, PostgreSQL, ${LARGEST} stored assessments`;
      return [
        {
          id: 'graphql.entities.largest_batch.p50_ms',
          value: round(percentile(alone, 50), 1),
          unit: 'ms',
          target: 1000,
          better: 'lower',
          note: `${note}; ${ROUNDS} rounds one at a time, worst ${round(Math.max(...alone), 1)} ms (${load})`,
        },
        {
          id: 'graphql.entities.largest_batch_concurrent.max_ms',
          value: round(Math.max(...together.map((answer) => answer.ms)), 1),
          unit: 'ms',
          better: 'lower',
          note: `${note}; ${CONCURRENT} at once: ${together.map((answer) => `${round(answer.ms, 0)} ms [${answer.status}]`).join(', ')} (${load})`,
        },
      ];
    } finally {
      await server.stop();
    }
  });
}

async function timed(url: string, variables: Record<string, unknown>): Promise<{ ms: number; status: number; found: number }> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY, variables }) });
  const body = (await response.json()) as { data?: { _entities?: unknown[] } };
  return { ms: performance.now() - started, status: response.status, found: body.data?._entities?.filter((entity) => entity !== null).length ?? 0 };
}
