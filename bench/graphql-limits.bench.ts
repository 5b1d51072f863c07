import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../kernel/project.js';
import { type Figure, percentile, round } from './figures.js';
import { LOCAL_BENCH_ENV } from './fixtures.js';
import { type ServerProcess, startServerProcess } from './processes.js';

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

/**
 * Issue 24: the red team's hostile documents. A list literal 40 levels deep ran 2^40 steps of
 * federation's query planning (a worker at 100% CPU for good), through each field that takes free-form
 * JSON; the cost rows (h-cost's part of the issue): connections nested without `first`, five pages
 * of 1,000 payloads through a variable's default, 15,000 entity representations sent to a subgraph port.
 */
const DEEP_LIST = `${'['.repeat(40)}1${']'.repeat(40)}`;
const SAMPLE_VERSION = '(model: "re-indicators-specification", version: "0.0.4")';
const HOSTILE_LITERALS: Record<string, string> = {
  validation_list_40: `{ modelVersion${SAMPLE_VERSION} { validation(payload: { x: ${DEEP_LIST} }) { passed } } }`,
  store_record_list_40: `mutation { storeRecord(input: { id: "h", model: "m", version: "1", idempotencyKey: "h", payload: { x: ${DEEP_LIST} } }) { replayed } }`,
  filter_json_list_40: `{ records(filter: { conditions: [{ field: PAYLOAD, path: "x", operator: EQ, value: { json: ${DEEP_LIST} } }] }) { totalCount } }`,
};
const HOSTILE_COSTS: Record<string, { query: string; variables?: Record<string, unknown> }> = {
  nested_records_without_first: { query: `{ modelVersion${SAMPLE_VERSION} { records { nodes { modelVersion { records { nodes { modelVersion { records { nodes { id } } } } } } } } } }` },
  five_pages_default_1000: { query: `query($n: Int = 1000) { ${Array.from({ length: 5 }, (_, i) => `r${i}: records(first: $n) { nodes { payload } }`).join(' ')} }` },
};
/**
 * Issue 35: 24 fragments each spreading the next twice (1,179 bytes, 3 × 2^24 selections once spread)
 * kept Hive's planner busy past the deadline, its worker growing by gigabytes; the second form puts
 * each spread in an inline fragment of its own, for a planner that would drop side-by-side duplicates.
 */
function fragmentChain(spread: (next: string) => string): string {
  const fragments = Array.from({ length: 24 }, (_, i) => `fragment F${i} on ModelVersion { ${spread(`F${i + 1}`)} }`);
  return `{ modelVersions { ...F0 } } ${fragments.join(' ')} fragment F24 on ModelVersion { model }`;
}
const HOSTILE_EXPANSIONS: Record<string, string> = {
  fragment_chain_24: fragmentChain((next) => `...${next} ...${next}`),
  fragment_chain_24_wrapped: fragmentChain((next) => `... on ModelVersion { ...${next} } ... on ModelVersion { ...${next} }`),
};
const ENTITIES_15000 = {
  query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on ModelVersion { model } } }',
  variables: { r: Array.from({ length: 15_000 }, () => ({ __typename: 'ModelVersion', model: 'm', version: '1' })) },
};
/** Records in the sample's version, so that the pages and nested connections above have rows to read. */
const SEEDED_RECORDS = 40;
const HOSTILE_ROUNDS = 3;
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification')).href;
const SAMPLE_ENV = {
  REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: `${SAMPLE}/0.0.4/` }]),
  REGISTRY_ALLOW_FILE_URLS: 'true',
  ARTIFACT_BASE_URL_TEMPLATE: `${SAMPLE}/{version}/`,
};
const SUBGRAPH_SECRET = 'bench-graphql-limits-secret';

export async function benchGraphqlLimits(): Promise<Figure[]> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-graphql-limits-'));
  const server = await startServerProcess('graphql-limits', { ...LOCAL_BENCH_ENV, ...SAMPLE_ENV, DATABASE_URL: `file:${path.join(workspace, 'records.db')}` });
  let subgraph: ServerProcess | undefined;
  const graphql = `http://127.0.0.1:${server.ports.gateway}/graphql`;
  const health = `http://127.0.0.1:${server.ports.core}/admin/health`;
  try {
    subgraph = await startServerProcess('graphql-limits-subgraph', {
      ...LOCAL_BENCH_ENV,
      ...SAMPLE_ENV,
      DATABASE_URL: `file:${path.join(workspace, 'records.db')}`,
      PROCESS_ROLE: 'subgraph',
      SUBGRAPH: 'models',
      SUBGRAPH_PORT: '0',
      GATEWAY_SUBGRAPH_SECRET: SUBGRAPH_SECRET,
    });
    const hostile = await hostileSet(graphql, `http://127.0.0.1:${subgraph.ports['subgraph:models']}/graphql`, [server, subgraph]);
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
    // The most the defaults let through to validation, and the literal and expansion attacks, back to back.
    const during = [HOSTILE_DOCUMENTS.repeated_scalar_500!, ...Object.values({ ...HOSTILE_LITERALS, ...HOSTILE_EXPANSIONS }).map((query) => () => query)];
    const healthDuring = await healthWhile(health, async (n) => {
      await post(graphql, `${during[n % during.length]!(n)}\n# during ${n}`);
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
        note: `GET /admin/health answered ${healthDuring.length} times (p50 ${round(percentile(healthDuring, 50), 1)} ms) while documents of 500 repeated fields (the most the defaults let through to validation), 40-level list literals and fragment chains of 3 × 2^24 selections were sent back to back`,
      },
      {
        id: 'graphql.hostile_literals.max_ms',
        value: round(hostile.slowest.ms, 1),
        unit: 'ms',
        target: 250,
        better: 'lower',
        note: `the slowest answer (of ${HOSTILE_ROUNDS} each, ${SEEDED_RECORDS} records stored) among issue 24's and issue 35's hostile documents, status in brackets: ${hostile.answers.map((a) => `${a.name} ${round(a.ms, 1)} ms [${a.status}]`).join(', ')}`,
      },
      {
        id: 'graphql.hostile_rss_growth_mb',
        value: hostile.rssGrowthMb,
        unit: 'MB',
        target: 100,
        better: 'lower',
        note: 'RSS growth of the server and the models subgraph process (one process each) over the hostile set',
      },
    ];
  } finally {
    await subgraph?.stop();
    await server.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

interface HostileAnswer {
  name: string;
  ms: number;
  status: number;
}

/**
 * Issue 24's and 35's documents, each sent HOSTILE_ROUNDS times (made unique by a comment): the
 * literals and fragment chains at `/graphql` and at the models subgraph's port, the cost rows at `/graphql`, the entities at the
 * port. Each answer's time, the slowest, and the RSS growth of the processes over the whole set.
 */
async function hostileSet(graphql: string, subgraph: string, processes: ServerProcess[]): Promise<{ answers: HostileAnswer[]; slowest: HostileAnswer; rssGrowthMb: number }> {
  const payload = JSON.parse(readFileSync(projectPath('examples', 'models', 're-indicators-specification', '0.0.4', 'example-assessment.request.json'), 'utf8')).payload;
  for (let i = 0; i < SEEDED_RECORDS; i++) {
    await post(graphql, 'mutation($i: StoreRecordInput!) { storeRecord(input: $i) { replayed } }', {
      i: { id: `seed-${i}`, model: 're-indicators-specification', version: '0.0.4', idempotencyKey: `seed-${i}`, payload },
    });
  }
  const rssBefore = processes.reduce((sum, each) => sum + each.rssMb(), 0);
  const requests: Array<[string, string, { query: string; variables?: Record<string, unknown> }]> = [
    ...Object.entries({ ...HOSTILE_LITERALS, ...HOSTILE_EXPANSIONS }).flatMap(([name, query]): Array<[string, string, { query: string }]> => [
      [`graphql.${name}`, graphql, { query }],
      [`subgraph.${name}`, subgraph, { query }],
    ]),
    ...Object.entries(HOSTILE_COSTS).map(([name, request]): [string, string, typeof request] => [`graphql.${name}`, graphql, request]),
    ['subgraph.entities_15000', subgraph, ENTITIES_15000],
  ];
  const answers: HostileAnswer[] = [];
  for (const [name, url, request] of requests) {
    for (let round = 0; round < HOSTILE_ROUNDS; round++) {
      const started = performance.now();
      const { status } = await post(url, `${request.query}\n# ${name} ${round}`, request.variables);
      answers.push({ name, ms: performance.now() - started, status });
    }
  }
  const rssGrowthMb = processes.reduce((sum, each) => sum + each.rssMb(), 0) - rssBefore;
  const slowestOf = (name: string) => answers.filter((a) => a.name === name).reduce((a, b) => (b.ms > a.ms ? b : a));
  const perDocument = requests.map(([name]) => slowestOf(name));
  return { answers: perDocument, slowest: perDocument.reduce((a, b) => (b.ms > a.ms ? b : a)), rssGrowthMb };
}

function post(url: string, query: string, variables?: Record<string, unknown>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }).then(async (response) => {
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
    for (const end = Date.now() + 3000; Date.now() < end;) {
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
