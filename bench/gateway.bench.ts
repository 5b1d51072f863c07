import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type Figure, round } from './figures.js';
import { type LoadRequest, compareLoads } from './load.js';
import { type ServerProcess, startHiveGatewayProcess, startServerProcess } from './processes.js';
import { LOCAL_BENCH_ENV, calculationArtifactHost, publishedCatalogEntry, sharedAssessment, sharedDataPresent } from './fixtures.js';

const ROUNDS = 3;
const SECONDS = 5;
const RECORDS = 10;

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

type Gateways = 'inprocess' | 'inprocess_apollo' | 'distributed' | 'hive' | 'hive_nodedup';

/**
 * Our gateway against a peer on the same query and the same subgraph processes:
 *   (a) `inprocess`: one `PROCESS_ROLE=all` process, the subgraphs in-process behind our gateway;
 *   (b) `distributed`: three `PROCESS_ROLE=subgraph` processes and a `PROCESS_ROLE=gateway` process;
 *   (c) `hive`: Hive Gateway (JavaScript planner) on the committed supergraph, the subgraph URLs of (b);
 *   `hive_nodedup`: the same with its sharing of identical in-flight subgraph queries turned off,
 *   like for like with (a), which executes every request (in-process there is no HTTP to share).
 * Every server is `node dist/server/main.js` (or bench/peers/hive-gateway.ts) in its own process,
 * AUTH_MODE=none everywhere; the load generator is a process too. Answers are checked equal first.
 */
export async function benchGateway(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('gateway bench skipped: ../shared/data is absent');
    return [];
  }
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-gateway-bench-'));
  const artifacts = await calculationArtifactHost();
  const processes: ServerProcess[] = [];
  const start = async (name: string, env: Record<string, string>) => {
    const server = await startServerProcess(name, { ...commonEnv(workspace, name), ...artifacts.env, ...env });
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
    // The same system with @apollo/gateway executing every request (GATEWAY_EXECUTOR=apollo).
    const inprocessApollo = await start('gateway-inprocess-apollo', { PROCESS_ROLE: 'all', GATEWAY_EXECUTOR: 'apollo' });
    const hive = await startHiveGatewayProcess({ ...urls, GATEWAY_PORT: '0', NODE_ENV: 'production' });
    processes.push(hive);
    const hiveNodedup = await startHiveGatewayProcess({ ...urls, GATEWAY_PORT: '0', NODE_ENV: 'production', HIVE_DEDUPLICATE_INFLIGHT: 'false' });
    processes.push(hiveNodedup);

    // The same records in both stores: through the distributed system's and the in-process one's core facade.
    await createRecords(`http://127.0.0.1:${distributed.ports.core}`);
    await createRecords(`http://127.0.0.1:${inprocess.ports.core}`);
    await createRecords(`http://127.0.0.1:${inprocessApollo.ports.core}`);

    const request: LoadRequest = { method: 'POST', path: '/graphql', body: { query: PASSPORT_QUERY, variables: { model: 're-indicators-specification', version: '0.0.4' } } };
    const targets: Record<Gateways, string> = {
      inprocess: `http://127.0.0.1:${inprocess.ports.gateway}`,
      inprocess_apollo: `http://127.0.0.1:${inprocessApollo.ports.gateway}`,
      distributed: `http://127.0.0.1:${distributed.ports.gateway}`,
      hive: `http://127.0.0.1:${hive.ports.gateway}`,
      hive_nodedup: `http://127.0.0.1:${hiveNodedup.ports.gateway}`,
    };
    await sameAnswers(request, targets);
    const loadBefore = os.loadavg()[0]!;
    const cpuMs = { inprocess: () => inprocess.cpuMs(), inprocess_apollo: () => inprocessApollo.cpuMs(), distributed: () => distributed.cpuMs(), hive: () => hive.cpuMs(), hive_nodedup: () => hiveNodedup.cpuMs() };
    const c = await compareLoads(request, targets, { rounds: ROUNDS, seconds: SECONDS, cpuMs });
    for (const [name, side] of Object.entries(c.sides) as Array<[Gateways, (typeof c.sides)[Gateways]]>) {
      if (side.result.errors > 0 || side.result.non2xx > 0) throw new Error(`gateway.${name}: ${side.result.errors} errors, ${side.result.non2xx} non-2xx answers under load`);
    }
    const { inprocess: a, inprocess_apollo: aa, distributed: b, hive: h, hive_nodedup: hn } = c.sides;
    const summary =
      `POST /graphql, query over the three subgraphs (modelVersion + indicatorSpecifications entity fetch, health.impact, ${RECORDS} records), ` +
      `AUTH_MODE=none, NODE_ENV=production, 20 connections, median of ${c.rounds} alternating ${c.seconds} s rounds after warm-up; every server and the load generator in its own process on ${os.cpus().length} CPUs shared with the subgraph processes (1-min load average before the run ${round(loadBefore, 1)}); ` +
      `in-process ${round(a.result.rps, 0)} req/s p50 ${a.result.p50} ms p99 ${a.result.p99} ms ${round(a.cpuMs, 2)} ms CPU/req (whole system), ` +
      `in-process with GATEWAY_EXECUTOR=apollo ${round(aa.result.rps, 0)} req/s p50 ${aa.result.p50} ms p99 ${aa.result.p99} ms ${round(aa.cpuMs, 2)} ms CPU/req, ` +
      `distributed ${round(b.result.rps, 0)} req/s p50 ${b.result.p50} ms p99 ${b.result.p99} ms ${round(b.cpuMs, 2)} ms gateway-process CPU/req, ` +
      `Hive Gateway ${round(h.result.rps, 0)} req/s p50 ${h.result.p50} ms p99 ${h.result.p99} ms ${round(h.cpuMs, 2)} ms gateway-process CPU/req, ` +
      `Hive Gateway without in-flight sharing ${round(hn.result.rps, 0)} req/s p50 ${hn.result.p50} ms p99 ${hn.result.p99} ms ${round(hn.cpuMs, 2)} ms gateway-process CPU/req`;
    const figure = (id: string, value: number, unit: string, better: 'lower' | 'higher', what: string, target?: number): Figure => ({
      id,
      value,
      unit,
      ...(target === undefined ? {} : { target }),
      better,
      note: `${what}; ${summary}`,
    });
    const rss = (id: string, server: ServerProcess, what: string) =>
      figure(`memory.rss_mb.${id}`, server.rssMb(), 'MB', 'lower', `RSS of the ${what} process right after the gateway runs`);
    return [
      figure('gateway.distributed_vs_hive.rps_ratio', round(b.result.rps / h.result.rps, 2), 'x', 'higher', 'our gateway over HTTP subgraphs ÷ Hive Gateway, throughput', 1.0),
      figure('gateway.inprocess_vs_hive.rps_ratio', round(a.result.rps / h.result.rps, 2), 'x', 'higher', 'our gateway with in-process subgraphs ÷ Hive Gateway, throughput', 2.0),
      figure('gateway.inprocess_apollo_vs_planned.rps_ratio', round(aa.result.rps / a.result.rps, 2), 'x', 'higher', 'the in-process system with GATEWAY_EXECUTOR=apollo ÷ the default (planned), throughput'),
      figure('gateway.inprocess_vs_hive_nodedup.rps_ratio', round(a.result.rps / hn.result.rps, 2), 'x', 'higher', 'our gateway with in-process subgraphs ÷ Hive Gateway with in-flight sharing off (both execute every request), throughput'),
      figure('gateway.distributed_vs_hive.p50_ratio', round(b.result.p50 / h.result.p50, 2), 'x', 'lower', 'our gateway over HTTP subgraphs ÷ Hive Gateway, p50'),
      figure('gateway.distributed_vs_hive.cpu_ratio', round(b.cpuMs / h.cpuMs, 2), 'x', 'lower', 'CPU time per request of our gateway process ÷ that of the Hive Gateway process (same subgraph processes)'),
      ...(['inprocess', 'inprocess_apollo', 'distributed', 'hive', 'hive_nodedup'] as const).flatMap((name) => [
        figure(`gateway.${name}.rps`, round(c.sides[name].result.rps, 0), 'req/s', 'higher', `${name} throughput`),
        figure(`gateway.${name}.p50_ms`, c.sides[name].result.p50, 'ms', 'lower', `${name} p50`),
        figure(`gateway.${name}.p99_ms`, c.sides[name].result.p99, 'ms', 'lower', `${name} p99`),
      ]),
      rss('gateway_inprocess', inprocess, 'PROCESS_ROLE=all (gateway, facades and the three subgraphs)'),
      rss('gateway_distributed', distributed, 'PROCESS_ROLE=gateway (gateway and facades)'),
      rss('gateway_hive', hive, 'Hive Gateway'),
      rss('gateway_hive_nodedup', hiveNodedup, 'Hive Gateway (in-flight sharing off)'),
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

function commonEnv(workspace: string, name: string): Record<string, string> {
  return {
    // As deployed (and as for Hive Gateway below): graphql-js's instanceOf skips its
    // development-mode checks, @apollo/gateway does not expose query plans on request.
    NODE_ENV: 'production',
    ...LOCAL_BENCH_ENV,
    REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry('Assessment')]),
    REGISTRY_ALLOW_FILE_URLS: 'true',
    DATABASE_URL: `file:${path.join(workspace, `${name}.db`)}`,
    // Distributed mode: what our gateway and its subgraphs share (the processes that are not distributed ignore it).
    GATEWAY_SUBGRAPH_SECRET: 'bench-gateway-subgraph-secret',
  };
}

export async function createRecords(core: string): Promise<void> {
  for (let i = 0; i < RECORDS; i++) {
    const payload = { ...sharedAssessment(), id: `assessment-bench-${i}` };
    const response = await fetch(`${core}/models/re-indicators-specification/versions/0.0.4:create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `gateway-bench-${i}` },
      body: JSON.stringify({ payload }),
    });
    if (response.status !== 200 && response.status !== 201) throw new Error(`:create answered ${response.status}: ${await response.text()}`);
  }
}

/** Every gateway answers the query, without errors, with the same data (record ids aside). */
async function sameAnswers(request: LoadRequest, targets: Record<Gateways, string>): Promise<void> {
  const answers: Record<string, unknown> = {};
  for (const [name, base] of Object.entries(targets)) {
    const response = await fetch(base + request.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) });
    const body = (await response.json()) as { data?: { records?: { nodes: Array<{ id: string }> } }; errors?: unknown[] };
    if (response.status !== 200 || body.errors) throw new Error(`gateway.${name}: ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
    const records = body.data?.records?.nodes;
    if (records?.length !== RECORDS) throw new Error(`gateway.${name}: expected ${RECORDS} records, got ${records?.length}`);
    for (const record of records) record.id = '(id)';
    answers[name] = body.data;
  }
  if (Object.values(answers).some((answer) => !isDeepStrictEqual(answer, answers.inprocess))) {
    throw new Error(`gateway answers differ: ${JSON.stringify(answers).slice(0, 1500)}`);
  }
}
