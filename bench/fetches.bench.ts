import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type DocumentNode, type GraphQLSchema, Kind, TypeInfo, getNamedType, parse, visit, visitWithTypeInfo } from 'graphql';
import { readCommittedSupergraph } from '../gateway/committed-supergraph.js';
import { federatedSupergraph } from '../gateway/executor/supergraph.js';
import { SUBGRAPH_NAMES } from '../subgraphs/names.js';
import { type CapturedFetch, CapturingProxy } from '../test/support/capturing-proxy.js';
import { grafbaseMissing } from '../test/support/grafbase.js';
import { type Figure, round } from './figures.js';
import { calculationArtifactHost, sharedDataPresent } from './fixtures.js';
import { IDENTICAL_VARIABLES, PASSPORT_QUERY, VARIED_VARIABLES, commonEnv, createRecords, startGrafbase } from './gateway.bench.js';
import { type ServerProcess, startServerProcess } from './processes.js';

/** Client requests at once, as the gateway bench's 20 connections send them; BURSTS of them per load. */
const CONCURRENT = 20;
const BURSTS = 5;

/**
 * A page of records, each with its model version's questionnaire: every record points at the same
 * model version, an entity the indicators subgraph completes (one representation per record, sent
 * as they come, or once).
 */
export const RECORDS_PAGE_QUERY = `query RecordsPage($model: String!, $version: String!) {
  records(filter: { conditions: [{ field: MODEL, operator: EQ, value: { string: $model } }, { field: VERSION, operator: EQ, value: { string: $version } }] }, first: 10) {
    nodes { id modelVersion { label indicatorSpecifications { id indicatorType } } }
  }
}`;

/** What one load sends: a query and the variable sets of its requests, round-robin. */
interface Load {
  id: string;
  what: string;
  query: string;
  variableSets: ReadonlyArray<Record<string, unknown>>;
}

const LOADS: Load[] = [
  { id: 'passport_identical', what: 'PASSPORT_QUERY, identical requests', query: PASSPORT_QUERY, variableSets: [IDENTICAL_VARIABLES] },
  { id: 'passport_varied', what: `PASSPORT_QUERY, varied requests (${CONCURRENT} variable sets)`, query: PASSPORT_QUERY, variableSets: VARIED_VARIABLES.slice(0, CONCURRENT) },
  { id: 'records_page_varied', what: `a page of 10 records with their model version's questionnaire, varied requests`, query: RECORDS_PAGE_QUERY, variableSets: VARIED_VARIABLES.slice(0, CONCURRENT) },
];

/** What one gateway sent the subgraphs for one load, per client request. */
interface FetchProfile {
  gateway: string;
  load: Load;
  requests: number;
  /** Per subgraph: fetches, operation text bytes, request and answer bytes, each per client request. */
  subgraphs: Record<string, { fetches: number; operationBytes: number; bytesSent: number; bytesReceived: number }>;
  /** Fields the fetches select that the client's operation does not (`Type.field`). */
  beyond: string[];
  /** Those of them no representation sent carries: selected for nothing. */
  unused: string[];
  duplicateRepresentations: number;
}

/**
 * Issue 39, item 3: the fetches each gateway sends the subgraphs for the bench's PASSPORT_QUERY
 * (identical and varied variable sets) and a page of records with their questionnaires: our
 * distributed gateway and Grafbase's (`grafbase dev`), each over the same three subgraph processes
 * (WORKERS=1) through a capturing proxy per subgraph (test/support/capturing-proxy.ts) that records
 * every subgraph request. BURSTS bursts of CONCURRENT client requests at once per load and gateway
 * (in-flight sharing of identical fetches counts, as under the gateway bench's 20 connections),
 * every answer checked equal between the gateways first. Per client request: fetches and bytes sent
 * and received per subgraph, operation text bytes, fields selected that the client's operation does
 * not use and no representation carries, representations duplicated within one `_entities` list.
 * Prints the comparison as a Markdown table (bench/PROFILE.md, "Fetches: ours against Grafbase's").
 */
export async function benchFetches(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('gateway.fetches bench skipped: ../shared/data is absent');
    return [];
  }
  const grafbaseAbsent = grafbaseMissing();
  if (grafbaseAbsent) console.warn(`gateway.fetches: Grafbase's columns skipped: ${grafbaseAbsent}`);
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-fetches-bench-'));
  const artifacts = await calculationArtifactHost();
  const processes: ServerProcess[] = [];
  const proxies: Record<string, CapturingProxy> = {};
  try {
    for (const name of SUBGRAPH_NAMES) {
      const subgraph = await startServerProcess(`subgraph-${name}`, { ...commonEnv(workspace, name), ...artifacts.env, PROCESS_ROLE: 'subgraph', SUBGRAPH: name, SUBGRAPH_PORT: '0' });
      processes.push(subgraph);
      proxies[name] = await CapturingProxy.start(`http://127.0.0.1:${subgraph.ports[`subgraph:${name}`]}/graphql`);
    }
    const urls = Object.fromEntries(SUBGRAPH_NAMES.map((name) => [`${name.toUpperCase()}_SUBGRAPH_URL`, proxies[name]!.url]));
    const ours = await startServerProcess('gateway-distributed', { ...commonEnv(workspace, 'gateway'), ...artifacts.env, PROCESS_ROLE: 'gateway', ...urls });
    processes.push(ours);
    for (const variables of [IDENTICAL_VARIABLES, ...VARIED_VARIABLES.slice(0, CONCURRENT)]) await createRecords(`http://127.0.0.1:${ours.ports.core}`, String(variables.version));
    const gateways: Record<string, string> = { ours: `http://127.0.0.1:${ours.ports.gateway}` };
    if (!grafbaseAbsent) {
      const grafbase = await startGrafbase(workspace, urls);
      processes.push(grafbase);
      gateways.grafbase = `http://127.0.0.1:${grafbase.ports.gateway}`;
    }
    const api = federatedSupergraph(await readCommittedSupergraph()).apiSchema.toGraphQLJSSchema();
    const profiles: FetchProfile[] = [];
    for (const load of LOADS) {
      await sameAnswers(load, gateways);
      for (const [gateway, base] of Object.entries(gateways)) {
        for (const proxy of Object.values(proxies)) proxy.clear();
        for (let burst = 0; burst < BURSTS; burst++) {
          await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => ask(base, load.query, load.variableSets[i % load.variableSets.length]!)));
        }
        profiles.push(profileOf(gateway, load, BURSTS * CONCURRENT, proxies, api));
      }
    }
    process.stderr.write(`\n${markdownTable(profiles)}\n`);
    return profiles.flatMap(figuresOf);
  } finally {
    for (const server of processes.reverse()) await server.stop();
    for (const proxy of Object.values(proxies)) await proxy.stop();
    artifacts.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function ask(base: string, query: string, variables: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await response.json()) as { data?: unknown; errors?: unknown };
  if (response.status !== 200 || body.errors) throw new Error(`gateway.fetches: ${base} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.data;
}

/** Both gateways give the same data for every variable set of the load. */
async function sameAnswers(load: Load, gateways: Record<string, string>): Promise<void> {
  for (const variables of load.variableSets) {
    const answers = await Promise.all(Object.values(gateways).map((base) => ask(base, load.query, variables)));
    if (answers.some((answer) => !isDeepStrictEqual(answer, answers[0]))) throw new Error(`gateway.fetches: the gateways' answers differ for ${load.id} ${JSON.stringify(variables)}`);
  }
}

function profileOf(gateway: string, load: Load, requests: number, proxies: Record<string, CapturingProxy>, api: GraphQLSchema): FetchProfile {
  const asked = coordinates(api, parse(load.query));
  const all = Object.values(proxies).flatMap((proxy) => proxy.fetches);
  const represented = new Set(all.flatMap((fetch) => representationsOf(fetch).flatMap((list) => list.flatMap(representedCoordinates))));
  const beyond = [...new Set(all.flatMap((fetch) => [...coordinates(api, parse(fetch.query))].filter((c) => !asked.has(c))))].sort();
  const per = (sum: number) => round(sum / requests, 2);
  const total = (fetches: CapturedFetch[], of: (fetch: CapturedFetch) => number) => per(fetches.reduce((sum, fetch) => sum + of(fetch), 0));
  return {
    gateway,
    load,
    requests,
    subgraphs: Object.fromEntries(
      Object.entries(proxies).map(([name, { fetches }]) => [
        name,
        {
          fetches: per(fetches.length),
          operationBytes: total(fetches, (fetch) => Buffer.byteLength(fetch.query)),
          bytesSent: total(fetches, (fetch) => fetch.bytesSent),
          bytesReceived: total(fetches, (fetch) => fetch.bytesReceived),
        },
      ]),
    ),
    beyond,
    unused: beyond.filter((c) => !represented.has(c)),
    duplicateRepresentations: per(all.reduce((sum, fetch) => sum + representationsOf(fetch).reduce((n, list) => n + list.length - new Set(list.map((r) => JSON.stringify(r))).size, 0), 0)),
  };
}

/** The `_entities` lists a fetch sends: its variables that are lists of objects with a `__typename`. */
function representationsOf(fetch: CapturedFetch): Array<Array<Record<string, unknown>>> {
  return Object.values(fetch.variables).filter(
    (value): value is Array<Record<string, unknown>> => Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && '__typename' in item),
  );
}

/** `Type.field` of each field a representation carries (its key and required fields), `__typename` included. */
function representedCoordinates(representation: Record<string, unknown>): string[] {
  return Object.keys(representation).map((field) => `${String(representation.__typename)}.${field}`);
}

/** `Type.field` of every field a document selects, by the API schema (`_entities`'s inline fragments typed by their condition). */
function coordinates(api: GraphQLSchema, document: DocumentNode): Set<string> {
  const found = new Set<string>();
  const types = new TypeInfo(api);
  visit(
    document,
    visitWithTypeInfo(types, {
      [Kind.FIELD](node) {
        const parent = types.getParentType();
        if (parent && node.name.value !== '_entities') found.add(`${getNamedType(parent).name}.${node.name.value}`);
      },
    }),
  );
  return found;
}

function figuresOf(profile: FetchProfile): Figure[] {
  const subgraphs = Object.values(profile.subgraphs);
  const sum = (of: (s: (typeof subgraphs)[number]) => number) =>
    round(
      subgraphs.reduce((total, s) => total + of(s), 0),
      2,
    );
  const id = `gateway.fetches.${profile.gateway}.${profile.load.id}`;
  const note = `${profile.load.what}; ${profile.requests} client requests, ${CONCURRENT} at once, through a capturing proxy per subgraph (bench/fetches.bench.ts); per client request`;
  return [
    { id: `${id}.fetches_per_request`, value: sum((s) => s.fetches), unit: 'fetches', better: 'lower', note: `subgraph requests, all subgraphs; ${note}` },
    { id: `${id}.subgraph_bytes_per_request`, value: sum((s) => s.bytesSent + s.bytesReceived), unit: 'B', better: 'lower', note: `request and answer bodies, all subgraphs; ${note}` },
    {
      id: `${id}.duplicate_representations_per_request`,
      value: profile.duplicateRepresentations,
      unit: 'representations',
      better: 'lower',
      note: `representations sent twice or more in one list; ${note}`,
    },
  ];
}

/** One row per load and gateway: what the gateway sent, per client request. */
function markdownTable(profiles: FetchProfile[]): string {
  const perSubgraph = (profile: FetchProfile, of: (s: FetchProfile['subgraphs'][string]) => number) =>
    Object.values(profile.subgraphs)
      .map((s) => of(s).toLocaleString('en-US'))
      .join(' / ');
  const fields = (list: string[]) => (list.length ? list.map((c) => `\`${c}\``).join(', ') : 'none');
  const header = `| load | gateway | fetches (${SUBGRAPH_NAMES.join(' / ')}) | operation text, bytes | selected beyond the client's operation | of which in no representation | duplicated representations | bytes sent | bytes received |`;
  const rows = profiles.map(
    (p) =>
      `| ${p.load.what} | ${p.gateway} | ${perSubgraph(p, (s) => s.fetches)} | ${perSubgraph(p, (s) => s.operationBytes)} | ${fields(p.beyond)} | ${fields(p.unused)} | ${p.duplicateRepresentations} | ${perSubgraph(p, (s) => s.bytesSent)} | ${perSubgraph(p, (s) => s.bytesReceived)} |`,
  );
  return [header, `|${'---|'.repeat(9)}`, ...rows].join('\n');
}
