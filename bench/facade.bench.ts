import os from 'node:os';
import { type Figure, round } from './figures.js';
import { type Comparison, type LoadRequest, type LoadResult, compareLoads, load } from './load.js';
import { profileWhile, summarise } from './cpu-profile.js';
import { type BareRequest, bareExpressServer, bareJsonServer } from './bare-route.js';
import { calculationArtifactHost, computeRequest, publishedCatalogEntry, sharedAssessment, sharedDataPresent, startBenchSystem } from './fixtures.js';

/** `direct`: the bare express route (the targets); `node`: the bare Node route (reported); `facade`. */
type Sides = 'direct' | 'node' | 'facade';

// Many short rounds, each side in turn, and the ratio taken round by round: load from elsewhere on
// this shared machine comes in bursts of seconds, which a few long rounds let land on one side only
// (three 4 s rounds gave the same code 0.93 and 1.37 for :validate).
const ROUNDS = 9;
const SECONDS = 1.5;

/**
 * REST facade overhead: the same operation through facade → gateway → subgraph (in-process), and
 * behind a bare Node route calling the domain directly (`bare-route.ts`), in the same process,
 * 20 connections from a load generator in its own process, alternating rounds (`compareLoads`).
 * `only` (from `--only facade.models`, say) limits the run to the routes it names.
 */
export async function benchFacade(only?: string): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('facade bench skipped: ../shared/data is absent');
    return [];
  }
  // `facade.query` names that route's figures, not `facade.query_offset`'s.
  const wanted = (name: string) => !only?.startsWith('facade.') || only === `facade.${name}` || only.startsWith(`facade.${name}.`);
  const figures: Figure[] = [];
  if (wanted('validate') || wanted('models') || QUERY_CASES.some((c) => wanted(c.name))) figures.push(...(await coreRoutes(wanted)));
  if (wanted('compute')) figures.push(...(await computeRoute()));
  return figures;
}

async function coreRoutes(wanted: (name: string) => boolean): Promise<Figure[]> {
  const system = await startBenchSystem({
    REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry('Assessment')]),
    AUTH_NONE_SUBJECT: QUERY_CALLER.subject,
    AUTH_NONE_TENANT: QUERY_CALLER.tenant,
  });
  const { registry, records } = system.services.models!;
  const answer = async ({ method, path: urlPath, body }: BareRequest) => {
    if (method === 'GET' && urlPath === '/models') return { models: registry.list().map((m) => ({ id: m.model, version: m.version })) };
    const [, model, op] = /^\/models\/([^/]+)\/versions\/([^/]+)$/.exec(urlPath) ?? [];
    if (method === 'POST' && op?.endsWith(':validate')) return registry.validate(model!, op.slice(0, -':validate'.length), (body as { payload: unknown }).payload);
    if (method === 'POST' && op?.endsWith(':query')) {
      const { page } = await records.pageByFilter(QUERY_CALLER, (body as { filter?: unknown }).filter ?? {}, { model: model!, version: op.slice(0, -':query'.length) });
      return { records: page.records.map((r) => ({ id: r.id, model: r.model, version: r.version, payload: r.payload })) };
    }
    throw new Error(`bare route: no ${method} ${urlPath}`);
  };
  const bare = await bareServers(answer);
  const targets = { ...bare.urls, facade: `http://127.0.0.1:${system.ports.core}` };
  const figures: Figure[] = [];
  try {
    if (wanted('validate')) {
      const request: LoadRequest = { method: 'POST', path: '/models/re-indicators-specification/versions/0.0.4:validate', body: { payload: sharedAssessment() } };
      figures.push(
        ...ratioFigures('validate', 'POST :validate, published 0.0.4, the shared assessment (JSON Schema + SHACL + OWL)', await compareLoads(request, targets, { rounds: ROUNDS, seconds: SECONDS })),
      );
      figures.push(rssFigure('facade_validate'), await profileFigure('validate', targets.facade, request));
    }
    if (wanted('models')) {
      const request: LoadRequest = { method: 'GET', path: '/models' };
      figures.push(...ratioFigures('models', 'GET /models, one catalog entry', await compareLoads(request, targets, { rounds: ROUNDS, seconds: SECONDS })));
      figures.push(rssFigure('facade_models'), await profileFigure('models', targets.facade, request));
    }
    const queries = QUERY_CASES.filter((c) => wanted(c.name));
    if (queries.length > 0) {
      await createRecords(targets.facade);
      for (const { name, filter, what } of queries) {
        const request: LoadRequest = { method: 'POST', path: '/models/re-indicators-specification/versions/0.0.4:query', body: { filter } };
        figures.push(...ratioFigures(name, `POST :query, ${QUERY_RECORDS} assessments in the SQLite store, ${what}`, await compareLoads(request, targets, { rounds: ROUNDS, seconds: SECONDS })));
        figures.push(rssFigure(`facade_${name}`), await profileFigure(name, targets.facade, request));
      }
    }
  } finally {
    await bare.close();
    await system.stop();
  }
  return figures;
}

const QUERY_CALLER = { subject: 'bench-owner', tenant: 'bench' };
const QUERY_RECORDS = 200;
const MANUFACTURERS = 20;
/**
 * The `:query` filters measured: `facade.query` a page selected by a payload value, `facade.query_offset` a page deep
 * in the store (issue 26: a REST `offset` is one operation, where it was a prelude finding the cursor and then the page).
 */
const QUERY_CASES = [
  {
    name: 'query',
    filter: { where: [{ field: 'payload.product_info.manufacturer', op: 'eq', value: 'manufacturer-7' }], limit: 100 },
    what: `eq on payload.product_info.manufacturer (${QUERY_RECORDS / MANUFACTURERS} of them, about 1.8 KB each)`,
  },
  { name: 'query_offset', filter: { limit: 20, offset: 150 }, what: 'no condition, limit 20 at offset 150 (records 151 to 170, about 1.8 KB each)' },
];

/** `QUERY_RECORDS` assessments through the core facade's `:create`, owned by the bench caller. */
async function createRecords(core: string): Promise<void> {
  const base = sharedAssessment() as { product_info: Record<string, unknown> };
  for (let i = 0; i < QUERY_RECORDS; i++) {
    const payload = { ...base, id: `assessment-bench-${i}`, product_info: { ...base.product_info, manufacturer: `manufacturer-${i % MANUFACTURERS}` } };
    const response = await fetch(`${core}/models/re-indicators-specification/versions/0.0.4:create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `facade-bench-${i}` },
      body: JSON.stringify({ payload }),
    });
    if (response.status !== 200) throw new Error(`:create answered ${response.status}: ${await response.text()}`);
  }
}

/**
 * `POST /compute` of the published 0.0.4 model, warm: facade → gateway → indicators subgraph →
 * this process's core facade for the delegated validation, against a bare route calling
 * `IndicatorService.compute`, which makes the same core call. The calculation artifact comes from
 * a local HTTP host (fetched once, then cached for the freshness window).
 */
async function computeRoute(): Promise<Figure[]> {
  const artifacts = await calculationArtifactHost();
  const system = await startBenchSystem({
    // No root_class: a compute payload is not a whole Assessment (DECISIONS section 5).
    REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry()]),
    ...artifacts.env,
  });
  const indicators = system.services.indicators!;
  const bare = await bareServers(({ body }) => indicators.compute(body));
  try {
    const request: LoadRequest = { method: 'POST', path: '/compute', body: computeRequest() };
    const targets = { ...bare.urls, facade: `http://127.0.0.1:${system.ports.indicators}` };
    const comparison = await compareLoads(request, targets, { rounds: ROUNDS, seconds: SECONDS });
    return [
      ...ratioFigures('compute', "POST /compute, published 0.0.4, compute-request-recycle-battery, validation delegated to this process's core facade on both paths", comparison),
      rssFigure('facade_compute'),
      await profileFigure('compute', targets.facade, request),
    ];
  } finally {
    await bare.close();
    await system.stop();
    artifacts.close();
  }
}

/** The median of `side ÷ baseline` over rounds run in the same turn of the alternation. */
function medianRatio(side: LoadResult[], baseline: LoadResult[], pick: (r: LoadResult) => number): number {
  const ratios = side.map((r, i) => pick(r) / pick(baseline[i]!)).sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)]!;
}

/** The two direct paths: the bare express route (targets) and the bare Node route (reported). */
async function bareServers(answer: (request: BareRequest) => unknown) {
  const direct = await bareExpressServer(answer);
  const node = await bareJsonServer(answer);
  return {
    urls: { direct: direct.url, node: node.url },
    close: async () => {
      await direct.close();
      await node.close();
    },
  };
}

function ratioFigures(name: string, what: string, c: Comparison<Sides>): Figure[] {
  for (const [side, { result: r }] of Object.entries(c.sides) as Array<[string, { result: { errors: number; non2xx: number } }]>) {
    if (r.errors > 0 || r.non2xx > 0) throw new Error(`facade.${name} (${side}): ${r.errors} errors, ${r.non2xx} non-2xx answers under load`);
  }
  const { facade, direct, node } = c.sides;
  const side = (label: string, s: typeof facade) => `${label} p50 ${s.result.p50} ms p99 ${s.result.p99} ms ${round(s.result.rps, 0)} req/s ${round(s.cpuMs, 3)} ms CPU/req`;
  const note = (figure: string) =>
    `${figure}; ${what}; 20 connections, ${c.rounds} alternating ${c.seconds} s rounds after warm-up, load generator in its own process ` +
    `(1-min load average ${round(os.loadavg()[0]!, 1)} on ${os.cpus().length} CPUs); ` +
    `${side('facade', facade)}; ${side('bare express route', direct)}; ${side('bare node route', node)} (each the median of its rounds); ` +
    `facade ÷ bare express p50 round by round: ${facade.rounds.map((r, i) => round(r.p50 / direct.rounds[i]!.p50, 2)).join(', ')}`;
  const f = (id: string, value: number, unit: string, better: 'lower' | 'higher', what: string, target?: number): Figure => ({
    id: `facade.${name}.${id}`,
    value,
    unit,
    ...(target === undefined ? {} : { target }),
    better,
    note: note(what),
  });
  return [
    f(
      'p50_ratio',
      round(
        medianRatio(facade.rounds, direct.rounds, (r) => r.p50),
        2,
      ),
      'x',
      'lower',
      'facade ÷ bare express route, p50, median of the round-by-round ratios',
      1.3,
    ),
    f('p99_ratio', round(facade.result.p99 / direct.result.p99, 2), 'x', 'lower', 'facade ÷ bare express route, p99'),
    f('p50_ratio_vs_node', round(facade.result.p50 / node.result.p50, 2), 'x', 'lower', 'facade ÷ bare Node route (no express), p50'),
    f('cpu_ratio_vs_node', round(facade.cpuMs / node.cpuMs, 2), 'x', 'lower', 'facade ÷ bare Node route, server CPU time per request'),
    f('p50_ms', facade.result.p50, 'ms', 'lower', 'facade p50'),
    f('p99_ms', facade.result.p99, 'ms', 'lower', 'facade p99'),
    f('rps', round(facade.result.rps, 0), 'req/s', 'higher', 'facade throughput'),
    f('direct_p50_ms', direct.result.p50, 'ms', 'lower', 'bare express route p50'),
    f('direct_p99_ms', direct.result.p99, 'ms', 'lower', 'bare express route p99'),
    f('direct_rps', round(direct.result.rps, 0), 'req/s', 'higher', 'bare express route throughput'),
    f('node_p50_ms', node.result.p50, 'ms', 'lower', 'bare Node route p50'),
    f('node_rps', round(node.result.rps, 0), 'req/s', 'higher', 'bare Node route throughput'),
  ];
}

const PROFILE_SECONDS = 5;

/**
 * Issue 7's proof: a CPU profile of the facade path under load (20 connections, the load generator
 * in its own process, so the profile is the server's), its five frames with most self time named
 * in the note. What was done about them: bench/PROFILE.md.
 */
async function profileFigure(name: string, facade: string, request: LoadRequest): Promise<Figure> {
  const { result, profile } = await profileWhile(() => load(facade, request, { seconds: PROFILE_SECONDS }));
  const summary = summarise(profile);
  const top = summary.self.slice(0, 5);
  const frames = top.map(([frame, share], i) => `${i + 1}. ${frame} ${share.toFixed(1)}%`).join('; ');
  const packages = summary.packages
    .slice(0, 5)
    .map(([pkg, share]) => `${pkg} ${share.toFixed(1)}%`)
    .join(', ');
  return {
    id: `facade.${name}.profile_top5_pct`,
    value: round(
      top.reduce((sum, [, share]) => sum + share, 0),
      1,
    ),
    unit: '%',
    better: 'lower',
    note:
      `share of the server's CPU samples in its five frames with most self time, facade path under load ` +
      `(${PROFILE_SECONDS} s, 20 connections, ${round(result.rps, 0)} req/s, ${summary.samples} samples, V8 sampling profiler as --cpu-prof): ${frames}; ` +
      `by package: ${packages}; what was done about them: bench/PROFILE.md`,
  };
}

/**
 * RSS of this process right after a run: the system under test and the bare routes, plus whatever
 * the runs before it in the same bench process left to the allocator.
 */
function rssFigure(run: string): Figure {
  return {
    id: `memory.rss_mb.${run}`,
    value: round(process.memoryUsage().rss / 2 ** 20, 0),
    unit: 'MB',
    better: 'lower',
    note: `RSS of the bench process (whole system in-process, plus the bare routes and what earlier runs of the process left) right after the ${run.replace('_', ' ')} run`,
  };
}
