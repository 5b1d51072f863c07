import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type Figure, round } from './figures.js';
import { type LoadRequest, type Side, alternatedRatio, compareLoads } from './load.js';
import { type ServerProcess, startGrafbaseProcess, startHiveGatewayProcess, startServerProcess } from './processes.js';
import { subgraphSdls } from '../gateway/compose.js';
import { GATEWAY_SECRET_HEADER } from '../pipeline/gateway-secret.js';
import { grafbaseMissing } from '../test/support/grafbase.js';
import { preferredGenerator } from './wrk.js';
import { LOCAL_BENCH_ENV, calculationArtifactHost, publishedCatalogEntry, sharedAssessment, sharedDataPresent } from './fixtures.js';

const ROUNDS = 3;
const SECONDS = 5;
/**
 * Our distributed gateway and Grafbase's alone in an alternation of their own (issue 39's method):
 * in the shared one, with ten sides between a side's turns, Grafbase's CPU a request moved by 12 %
 * from one run to the next (bench/PROFILE.md, "Eleventh steps").
 */
const PAIRED_ROUNDS = 6;
const PAIRED_SECONDS = 15;
/** The sides of that alternation. */
const PAIRED_SIDES = ['distributed', 'grafbase', 'distributed_varied', 'grafbase_varied'] as const;
const RECORDS = 10;
/** Distinct variable sets of the varied load: more than the 20 connections, so that the requests in flight never repeat one. */
const VARIED_SETS = 100;
const MODEL = 're-indicators-specification';
/**
 * What our distributed gateway and its subgraphs share; Hive Gateway and Grafbase send it too, so
 * that the subgraphs treat every gateway's fetches alike (bench/peers/hive-gateway.ts, grafbase.toml).
 */
const GATEWAY_SUBGRAPH_SECRET = 'bench-gateway-subgraph-secret';

/**
 * The varied load's model versions: stand-ins for 0.0.4, each a catalog entry without artifacts
 * (nothing to compile: its validators pass everything), the questionnaire of 0.0.4 served for it by
 * `calculationArtifactHost`, and RECORDS records of its own. A request for one of them does the
 * same work as one for 0.0.4, with subgraph fetches of its own (modelVersion and records, the
 * questionnaire's entity fetch): different variables make different subgraph queries.
 */
export const VARIED_VERSIONS: readonly string[] = Array.from({ length: VARIED_SETS }, (_, i) => `0.0.4-bench.${i + 1}`);

/** The gateway bench's catalog: the published 0.0.4 and the varied load's stand-in versions. */
export function benchCatalog(): unknown[] {
  return [publishedCatalogEntry('Assessment'), ...VARIED_VERSIONS.map((version) => ({ model: MODEL, version }))];
}

/** PASSPORT_QUERY's variables: one set (the identical load) or one per stand-in version (the varied load). */
export const IDENTICAL_VARIABLES = { model: MODEL, version: '0.0.4' };
export const VARIED_VARIABLES: ReadonlyArray<Record<string, unknown>> = VARIED_VERSIONS.map((version) => ({ model: MODEL, version }));

/** One query over the three subgraphs: a model version, its questionnaire (indicators, an entity fetch), impact, records. */
export const PASSPORT_QUERY = `query Passport($model: String!, $version: String!) {
  modelVersion(model: $model, version: $version) {
    model version label
    indicatorSpecifications { id indicatorType productCategory parameters { id weight fixedScore questions { id weight answers { id score } } } }
  }
  health { impact { status service version } }
  records(
    filter: { conditions: [{ field: MODEL, operator: EQ, value: { string: $model } }, { field: VERSION, operator: EQ, value: { string: $version } }] }
    first: ${RECORDS}
  ) { nodes { id model version payload } }
}`;

/** Every gateway under the identical load; the `_varied` sides run the varied load in the same alternation. */
type Gateways = 'inprocess' | 'distributed' | 'hive' | 'hive_nodedup' | 'hive_rust' | 'grafbase';
type VariedSides = 'inprocess_varied' | 'distributed_varied' | 'hive_varied' | 'hive_rust_varied' | 'grafbase_varied';
type Sides = Gateways | VariedSides;
const VARIED: Record<VariedSides, Gateways> = {
  inprocess_varied: 'inprocess',
  distributed_varied: 'distributed',
  hive_varied: 'hive',
  hive_rust_varied: 'hive_rust',
  grafbase_varied: 'grafbase',
};

/**
 * Our gateway against peers on the same query and the same subgraph processes:
 *   (a) `inprocess`: one `PROCESS_ROLE=all` process, the subgraphs in-process behind our gateway;
 *   (b) `distributed`: three `PROCESS_ROLE=subgraph` processes and a `PROCESS_ROLE=gateway` process;
 *   (c) `hive`: Hive Gateway (JavaScript planner) on the committed supergraph, the subgraph URLs of (b);
 *   (d) `hive_rust`: the same Hive Gateway with `@graphql-hive/router-runtime` (Hive Router's Rust
 *   query planner and executor), the fastest JavaScript gateway we know of;
 *   `hive_nodedup`: (c) with its sharing of identical in-flight subgraph queries turned off,
 *   like for like with (a) before our in-process sharing;
 *   (e) `grafbase`: Grafbase's gateway (Rust), started as its users start it offline, `grafbase dev`
 *   on a grafbase.toml naming the subgraph URLs of (b) and each subgraph's SDL from the code,
 *   inserting our gateway's subgraph secret (issue 39); skipped with a message when its CLI is not
 *   installed (`npm run tools:grafbase`). Its sides run after the others' alternation, in one of
 *   their own with (b)'s (PAIRED_ROUNDS), which its figures are taken from.
 * One process per gateway (WORKERS=1 for ours, Hive's single process, Grafbase's one process and
 * its threads). The CPU of each gateway process per request, and of the three subgraph processes
 * per request of each gateway process, is measured over its rounds. Two loads in one
 * alternation: identical requests (one variable set: every request in flight asks the subgraphs the
 * same, and in-flight sharing answers many from one fetch) and varied requests (VARIED_SETS sets
 * round-robin, the same list for every gateway, so that the requests in flight share nothing but
 * the tiny `health { impact }` fetch). In-flight sharing is on for every gateway in both (ours, Hive's
 * default `deduplicateInflightRequests`), `hive_nodedup` aside.
 * Every server is `node dist/bundle/server.js` (or bench/peers/hive-gateway.ts) in its own process,
 * AUTH_MODE=none everywhere; the load generator is a process too. Answers are checked equal first,
 * for every variable set of both loads.
 */
export async function benchGateway(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('gateway bench skipped: ../shared/data is absent');
    return [];
  }
  const grafbaseAbsent = grafbaseMissing();
  if (grafbaseAbsent) console.warn(`gateway bench: the grafbase peer skipped: ${grafbaseAbsent}`);
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-gateway-bench-'));
  const artifacts = await calculationArtifactHost();
  const processes: ServerProcess[] = [];
  const start = async (name: string, env: Record<string, string>) => {
    const server = await startServerProcess(name, { ...commonEnv(workspace, name), ...artifacts.env, ...env });
    processes.push(server);
    return server;
  };
  const startHive = async (env: Record<string, string>) => {
    const server = await startHiveGatewayProcess({ ...env, GATEWAY_PORT: '0', NODE_ENV: 'production', GATEWAY_SUBGRAPH_SECRET });
    processes.push(server);
    return server;
  };
  try {
    const subgraphs: Record<string, ServerProcess> = {};
    for (const name of ['models', 'indicators', 'impact']) subgraphs[name] = await start(`subgraph-${name}`, { PROCESS_ROLE: 'subgraph', SUBGRAPH: name, SUBGRAPH_PORT: '0' });
    const urls = {
      MODELS_SUBGRAPH_URL: `http://127.0.0.1:${subgraphs.models!.ports['subgraph:models']}/graphql`,
      INDICATORS_SUBGRAPH_URL: `http://127.0.0.1:${subgraphs.indicators!.ports['subgraph:indicators']}/graphql`,
      IMPACT_SUBGRAPH_URL: `http://127.0.0.1:${subgraphs.impact!.ports['subgraph:impact']}/graphql`,
    };
    const distributed = await start('gateway-distributed', { PROCESS_ROLE: 'gateway', ...urls });
    const inprocess = await start('gateway-inprocess', { PROCESS_ROLE: 'all' });
    const hive = await startHive(urls);
    const hiveNodedup = await startHive({ ...urls, HIVE_DEDUPLICATE_INFLIGHT: 'false' });
    const hiveRust = await startHive({ ...urls, HIVE_ROUTER_RUNTIME: 'true' });
    const grafbase = grafbaseAbsent ? undefined : await startGrafbase(workspace, urls);
    if (grafbase) processes.push(grafbase);

    // The same records in every store: through the distributed system's and the in-process ones' core facades.
    await Promise.all(
      [distributed, inprocess].map(async (system) => {
        for (const version of ['0.0.4', ...VARIED_VERSIONS]) await createRecords(`http://127.0.0.1:${system.ports.core}`, version);
      }),
    );

    const request: LoadRequest = { method: 'POST', path: '/graphql', body: { query: PASSPORT_QUERY, variables: IDENTICAL_VARIABLES } };
    const varied: LoadRequest = { ...request, variableSets: VARIED_VARIABLES };
    const gateways = { inprocess, distributed, hive, hive_nodedup: hiveNodedup, hive_rust: hiveRust, ...(grafbase ? { grafbase } : {}) } as Record<Gateways, ServerProcess>;
    const base = (server: ServerProcess) => `http://127.0.0.1:${server.ports.gateway}`;
    const variedSides = (Object.keys(VARIED) as VariedSides[]).filter((side) => gateways[VARIED[side]]);
    const targets = Object.fromEntries([...Object.entries(gateways).map(([name, server]) => [name, base(server)]), ...variedSides.map((side) => [side, base(gateways[VARIED[side]])])]) as Record<
      Sides,
      string
    >;
    for (const variables of [IDENTICAL_VARIABLES, ...VARIED_VARIABLES]) {
      await sameAnswers(variables, variables === IDENTICAL_VARIABLES ? targets : pick(targets, variedSides));
    }
    // The Rust planner is a native addon, loaded with the graph (at the first request): the process that must run it has it mapped, the other not.
    if (!mapsRustPlanner(hiveRust.pid) || mapsRustPlanner(hive.pid)) throw new Error('gateway.hive_rust: the Rust query planner is not (only) in the router-runtime process');
    const loadBefore = os.loadavg()[0]!;
    const cpuMs = Object.fromEntries(Object.keys(targets).map((side) => [side, () => gateways[(VARIED[side as VariedSides] ?? side) as Gateways].cpuMs()])) as Record<Sides, () => number>;
    const requests = Object.fromEntries(variedSides.map((side) => [side, varied])) as Record<VariedSides, LoadRequest>;
    const generator = preferredGenerator();
    const subgraphCpuMs = () => Object.values(subgraphs).reduce((sum, subgraph) => sum + subgraph.cpuMs(), 0);
    const shared = (Object.keys(targets) as Sides[]).filter((side) => side !== 'grafbase' && side !== 'grafbase_varied');
    const c = await compareLoads(request, pick(targets, shared), { rounds: ROUNDS, seconds: SECONDS, cpuMs, sharedCpuMs: subgraphCpuMs, requests, generator });
    const paired = grafbase
      ? await compareLoads(request, pick(targets, [...PAIRED_SIDES]), { rounds: PAIRED_ROUNDS, seconds: PAIRED_SECONDS, cpuMs, sharedCpuMs: subgraphCpuMs, requests, generator, alternate: true })
      : undefined;
    const s = { ...c.sides, ...(paired ? { grafbase: paired.sides.grafbase, grafbase_varied: paired.sides.grafbase_varied } : {}) } as Record<Sides, Side>;
    for (const [name, side] of Object.entries(s) as Array<[Sides, Side]>) {
      if (side.result.errors > 0 || side.result.non2xx > 0) throw new Error(`gateway.${name}: ${side.result.errors} errors, ${side.result.non2xx} non-2xx answers under load`);
    }
    const at = (name: Sides, what: string, cpu: string) =>
      `${what} ${round(s[name].result.rps, 0)} req/s p50 ${s[name].result.p50} ms p99 ${s[name].result.p99} ms ${round(s[name].cpuMs, 2)} ms ${cpu} CPU/req`;
    const summary =
      `POST /graphql, query over the three subgraphs (modelVersion + indicatorSpecifications entity fetch, health.impact, ${RECORDS} records), ` +
      `AUTH_MODE=none, NODE_ENV=production, one process per gateway (ours WORKERS=1, Hive's single process), 20 connections, median of ${c.rounds} alternating ${c.seconds} s rounds after warm-up, ` +
      `identical and varied loads in one alternation; in-flight sharing of identical subgraph queries ON for every gateway but hive_nodedup (ours: gateway/executor/inflight-sharing.ts; Hive: its default deduplicateInflightRequests, both runtimes); ` +
      `Hive sends our gateway's subgraph secret, so the subgraphs treat its fetches as ours (bench/peers/hive-gateway.ts); ` +
      `identical load: one variable set (${MODEL} 0.0.4), so concurrent requests share subgraph fetches; varied load: ${VARIED_SETS} variable sets round-robin over all connections, the same list for every gateway ` +
      `(${MODEL} 0.0.4-bench.1 to .${VARIED_SETS}: stand-ins with 0.0.4's questionnaire and ${RECORDS} records each, same work per request, no two requests in flight with the same subgraph queries but health.impact); ` +
      `load generator ${generator} (wrk when installed: autocannon's own CPU per 125 KB answer is taken from the 2 CPUs the systems share); ` +
      `every server and the load generator in its own process on ${os.cpus().length} CPUs shared with the subgraph processes (1-min load average before the run ${round(loadBefore, 1)}); ` +
      `identical: ${at('inprocess', 'in-process', 'whole-system')}, ` +
      `${at('distributed', 'distributed', 'gateway-process')}, ${at('hive', 'Hive Gateway', 'gateway-process')}, ${at('hive_nodedup', 'Hive Gateway without in-flight sharing', 'gateway-process')}, ` +
      `${at('hive_rust', 'Hive Gateway + router-runtime', 'gateway-process')}; ` +
      `varied: ${at('inprocess_varied', 'in-process', 'whole-system')}, ${at('distributed_varied', 'distributed', 'gateway-process')}, ${at('hive_varied', 'Hive Gateway', 'gateway-process')}, ` +
      `${at('hive_rust_varied', 'Hive Gateway + router-runtime', 'gateway-process')}` +
      (grafbase
        ? `; Grafbase (grafbase dev, CLI 0.103.0, its gateway's threads on the same CPUs), in an alternation of its own with the distributed sides (${PAIRED_ROUNDS} rounds of ${PAIRED_SECONDS} s, every other in reverse order): identical ${at('grafbase', 'Grafbase', 'gateway-process')}, varied ${at('grafbase_varied', 'Grafbase', 'gateway-process')}`
        : `; Grafbase skipped: ${grafbaseAbsent}`);
    const figure = (id: string, value: number, unit: string, better: 'lower' | 'higher', what: string, target?: number): Figure => ({
      id,
      value,
      unit,
      ...(target === undefined ? {} : { target }),
      better,
      note: `${what}; ${summary}`,
    });
    const rps = (a: Sides, b: Sides) => round(s[a].result.rps / s[b].result.rps, 2);
    const rss = (id: string, server: ServerProcess, what: string) => figure(`memory.rss_mb.${id}`, server.rssMb(), 'MB', 'lower', `RSS of the ${what} process right after the gateway runs`);
    /** The sides whose gateway is a process of its own (not the in-process system, whose CPU is the whole system's). */
    const gatewayProcessSides = (Object.keys(targets) as Sides[]).filter((side) => !side.startsWith('inprocess'));
    return [
      ...(paired ? grafbaseFigures(paired.sides, figure) : []),
      ...gatewayProcessSides.flatMap((side) => [
        figure(`gateway.cpu_per_request_ms.${side}`, round(s[side].cpuMs, 2), 'ms', 'lower', `CPU time (user + system) of the ${side} gateway process per answered request`),
        figure(
          `gateway.subgraphs_cpu_per_request_ms.${side}`,
          round(s[side].sharedCpuMs, 2),
          'ms',
          'lower',
          `CPU time of the three subgraph processes per request the ${side} gateway answered (the fetches it sends, what they cost the subgraphs)`,
        ),
      ]),
      figure(
        'gateway.distributed_vs_hive_rust.rps_ratio',
        rps('distributed_varied', 'hive_rust_varied'),
        'x',
        'higher',
        'our gateway over HTTP subgraphs ÷ Hive Gateway + router-runtime (Rust planner), throughput, varied requests',
        1.5,
      ),
      figure(
        'gateway.inprocess_vs_hive_rust.rps_ratio',
        rps('inprocess_varied', 'hive_rust_varied'),
        'x',
        'higher',
        'our gateway with in-process subgraphs ÷ Hive Gateway + router-runtime (Rust planner), throughput, varied requests',
        2.0,
      ),
      figure(
        'gateway.distributed_vs_hive_rust_identical.rps_ratio',
        rps('distributed', 'hive_rust'),
        'x',
        'higher',
        'our gateway over HTTP subgraphs ÷ Hive Gateway + router-runtime, throughput, identical requests',
      ),
      figure(
        'gateway.inprocess_vs_hive_rust_identical.rps_ratio',
        rps('inprocess', 'hive_rust'),
        'x',
        'higher',
        'our gateway with in-process subgraphs ÷ Hive Gateway + router-runtime, throughput, identical requests',
      ),
      figure(
        'gateway.distributed_vs_hive_rust.cpu_ratio',
        round(s.distributed_varied.cpuMs / s.hive_rust_varied.cpuMs, 2),
        'x',
        'lower',
        'CPU time per request of our gateway process ÷ that of the Hive Gateway + router-runtime process (same subgraph processes), varied requests',
      ),
      figure(
        'gateway.distributed_vs_hive_rust.p50_ratio',
        round(s.distributed_varied.result.p50 / s.hive_rust_varied.result.p50, 2),
        'x',
        'lower',
        'our gateway over HTTP subgraphs ÷ Hive Gateway + router-runtime, p50, varied requests',
      ),
      figure(
        'gateway.distributed_vs_hive_varied.rps_ratio',
        rps('distributed_varied', 'hive_varied'),
        'x',
        'higher',
        'our gateway over HTTP subgraphs ÷ Hive Gateway (JS planner), throughput, varied requests',
      ),
      figure(
        'gateway.inprocess_vs_hive_varied.rps_ratio',
        rps('inprocess_varied', 'hive_varied'),
        'x',
        'higher',
        'our gateway with in-process subgraphs ÷ Hive Gateway (JS planner), throughput, varied requests',
      ),
      figure(
        'gateway.hive_rust_vs_hive_varied.rps_ratio',
        rps('hive_rust_varied', 'hive_varied'),
        'x',
        'higher',
        'Hive Gateway + router-runtime ÷ Hive Gateway (JS planner), throughput, varied requests',
      ),
      figure('gateway.distributed_vs_hive.rps_ratio', rps('distributed', 'hive'), 'x', 'higher', 'our gateway over HTTP subgraphs ÷ Hive Gateway, throughput, identical requests', 1.0),
      figure('gateway.inprocess_vs_hive.rps_ratio', rps('inprocess', 'hive'), 'x', 'higher', 'our gateway with in-process subgraphs ÷ Hive Gateway, throughput, identical requests', 2.0),
      figure(
        'gateway.inprocess_vs_hive_nodedup.rps_ratio',
        rps('inprocess', 'hive_nodedup'),
        'x',
        'higher',
        'our gateway with in-process subgraphs (in-flight sharing on) ÷ Hive Gateway with in-flight sharing off, throughput, identical requests',
      ),
      figure('gateway.distributed_vs_hive.p50_ratio', round(s.distributed.result.p50 / s.hive.result.p50, 2), 'x', 'lower', 'our gateway over HTTP subgraphs ÷ Hive Gateway, p50, identical requests'),
      figure(
        'gateway.distributed_vs_hive.cpu_ratio',
        round(s.distributed.cpuMs / s.hive.cpuMs, 2),
        'x',
        'lower',
        'CPU time per request of our gateway process ÷ that of the Hive Gateway process (same subgraph processes), identical requests',
      ),
      ...(Object.keys(targets) as Sides[]).flatMap((name) => [
        figure(`gateway.${name}.rps`, round(s[name].result.rps, 0), 'req/s', 'higher', `${name} throughput`),
        figure(`gateway.${name}.p50_ms`, s[name].result.p50, 'ms', 'lower', `${name} p50`),
        figure(`gateway.${name}.p99_ms`, s[name].result.p99, 'ms', 'lower', `${name} p99`),
      ]),
      rss('gateway_inprocess', inprocess, 'PROCESS_ROLE=all (gateway, facades and the three subgraphs)'),
      rss('gateway_distributed', distributed, 'PROCESS_ROLE=gateway (gateway and facades)'),
      rss('gateway_hive', hive, 'Hive Gateway'),
      rss('gateway_hive_nodedup', hiveNodedup, 'Hive Gateway (in-flight sharing off)'),
      rss('gateway_hive_rust', hiveRust, 'Hive Gateway + router-runtime'),
      ...(grafbase ? [rss('gateway_grafbase', grafbase, 'Grafbase (grafbase dev)')] : []),
      rss('subgraph_models', subgraphs.models!, 'models subgraph'),
      rss('subgraph_indicators', subgraphs.indicators!, 'indicators subgraph'),
      rss('subgraph_impact', subgraphs.impact!, 'impact subgraph'),
    ];
  } finally {
    for (const server of processes.reverse()) await server.stop();
    artifacts.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * Issue 39: our distributed gateway against Grafbase's, throughput and gateway CPU per request, varied
 * and identical, from their alternation of their own: each the median of the ratios of round pairs
 * (load.ts `alternatedRatio`: one round in each order, so the order cancels out).
 */
function grafbaseFigures(
  s: Record<(typeof PAIRED_SIDES)[number], Side>,
  figure: (id: string, value: number, unit: string, better: 'lower' | 'higher', what: string, target?: number) => Figure,
): Figure[] {
  const rps = (side: Side) => side.rounds.map((r) => r.rps);
  const ratio = (a: number[], b: number[]) => round(alternatedRatio(a, b).ratio, 2);
  return [
    figure(
      'gateway.distributed_vs_grafbase.rps_ratio',
      ratio(rps(s.distributed_varied), rps(s.grafbase_varied)),
      'x',
      'higher',
      "our gateway over HTTP subgraphs ÷ Grafbase's gateway, throughput, varied requests",
      0.9,
    ),
    figure(
      'gateway.distributed_vs_grafbase_identical.rps_ratio',
      ratio(rps(s.distributed), rps(s.grafbase)),
      'x',
      'higher',
      "our gateway over HTTP subgraphs ÷ Grafbase's gateway, throughput, identical requests",
    ),
    figure(
      'gateway.distributed_vs_grafbase.cpu_ratio',
      ratio(s.distributed_varied.roundCpuMs, s.grafbase_varied.roundCpuMs),
      'x',
      'lower',
      "CPU time per request of our gateway process ÷ that of Grafbase's (same subgraph processes), varied requests",
      1.5,
    ),
    figure(
      'gateway.distributed_vs_grafbase_identical.cpu_ratio',
      ratio(s.distributed.roundCpuMs, s.grafbase.roundCpuMs),
      'x',
      'lower',
      "CPU time per request of our gateway process ÷ that of Grafbase's (same subgraph processes), identical requests",
      1.5,
    ),
  ];
}

/**
 * Grafbase's gateway over the distributed subgraph processes: each subgraph's SDL as the code builds
 * it (what `npm run compose` composes), our gateway's secret inserted into every subgraph request.
 */
export async function startGrafbase(workspace: string, urls: Record<string, string>): Promise<ServerProcess> {
  const dir = path.join(workspace, 'grafbase');
  mkdirSync(dir);
  const subgraphs = (await subgraphSdls()).map(({ name, sdl }) => ({ name, sdl, url: urls[`${name.toUpperCase()}_SUBGRAPH_URL`]! }));
  return startGrafbaseProcess(dir, subgraphs, [{ name: GATEWAY_SECRET_HEADER, value: GATEWAY_SUBGRAPH_SECRET }]);
}

function pick<K extends string>(record: Record<string, string>, keys: K[]): Record<K, string> {
  return Object.fromEntries(keys.map((key) => [key, record[key]!])) as Record<K, string>;
}

/** Whether the process has Hive Router's query planner addon (`hive_router_query_planner.*.node`) mapped. */
function mapsRustPlanner(pid: number): boolean {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('hive_router_query_planner');
}

export function commonEnv(workspace: string, name: string): Record<string, string> {
  return {
    // As deployed (and as for Hive Gateway below): graphql-js's instanceOf skips its
    // development-mode checks, @apollo/gateway does not expose query plans on request.
    NODE_ENV: 'production',
    ...LOCAL_BENCH_ENV,
    REGISTRY_CATALOG_JSON: JSON.stringify(benchCatalog()),
    REGISTRY_ALLOW_FILE_URLS: 'true',
    DATABASE_URL: `file:${path.join(workspace, `${name}.db`)}`,
    // Distributed mode: what our gateway and its subgraphs share (the processes that are not distributed ignore it).
    GATEWAY_SUBGRAPH_SECRET,
    // One process per gateway, as Hive Gateway runs here (WORKERS defaults to the CPU count).
    WORKERS: '1',
    // GATEWAY_PLANNER of the bench's environment, as a deployment reads it (`hive`: stop where Hive's
    // binary does not load rather than bench the fallback); unset, the default (hive where it loads).
    ...(process.env.GATEWAY_PLANNER ? { GATEWAY_PLANNER: process.env.GATEWAY_PLANNER } : {}),
  };
}

/** RECORDS records of `version` (0.0.4's shared assessment, ids of their own) through a core facade. */
export async function createRecords(core: string, version = '0.0.4'): Promise<void> {
  for (let i = 0; i < RECORDS; i++) {
    const suffix = version === '0.0.4' ? `${i}` : `${version}-${i}`;
    const payload = { ...sharedAssessment(), id: `assessment-bench-${suffix}` };
    const response = await fetch(`${core}/models/${MODEL}/versions/${encodeURIComponent(version)}:create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `gateway-bench-${suffix}` },
      body: JSON.stringify({ payload }),
    });
    if (response.status !== 200 && response.status !== 201) throw new Error(`:create ${version} answered ${response.status}: ${await response.text()}`);
  }
}

/** Every gateway answers the query with these variables, without errors, with the same data (record ids aside). */
async function sameAnswers<K extends string>(variables: Record<string, unknown>, targets: Record<K, string>): Promise<void> {
  const answers: Record<string, unknown> = {};
  for (const [name, base] of Object.entries(targets) as Array<[K, string]>) {
    const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: PASSPORT_QUERY, variables }) });
    const body = (await response.json()) as {
      data?: { modelVersion?: { version: string; indicatorSpecifications: unknown[] } | null; records?: { nodes: Array<{ id: string; version: string }> } };
      errors?: unknown[];
    };
    const what = `gateway.${name} (${JSON.stringify(variables)})`;
    if (response.status !== 200 || body.errors) throw new Error(`${what}: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
    const modelVersion = body.data?.modelVersion;
    if (!modelVersion || modelVersion.version !== variables.version || modelVersion.indicatorSpecifications.length === 0) {
      throw new Error(`${what}: no questionnaire of ${String(variables.version)}: ${JSON.stringify(modelVersion)?.slice(0, 300)}`);
    }
    const records = body.data?.records?.nodes;
    if (records?.length !== RECORDS || records.some((record) => record.version !== variables.version))
      throw new Error(`${what}: expected ${RECORDS} records of ${String(variables.version)}, got ${records?.length}`);
    for (const record of records) record.id = '(id)';
    answers[name] = body.data;
  }
  const [first, ...others] = Object.values(answers);
  if (others.some((answer) => !isDeepStrictEqual(answer, first))) {
    throw new Error(`gateway answers differ for ${JSON.stringify(variables)}: ${JSON.stringify(answers).slice(0, 1500)}`);
  }
}
