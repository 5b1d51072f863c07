import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { type CpuProfile, inSources, shortUrl, summarise } from './cpu-profile.js';
import { type LoadRequest, type LoadResult, load } from './load.js';
import { type ServerProcess, startServerProcess } from './processes.js';
import { preferredGenerator } from './wrk.js';
import { IDENTICAL_VARIABLES, PASSPORT_QUERY, VARIED_VARIABLES, VARIED_VERSIONS, commonEnv, createRecords } from './gateway.bench.js';
import { calculationArtifactHost, sharedDataPresent } from './fixtures.js';

/**
 * The gateway bench's `distributed` side (three `PROCESS_ROLE=subgraph` processes, one
 * `PROCESS_ROLE=gateway` process at WORKERS=1, the bench's records) with the gateway process under
 * `node --cpu-prof`, loaded with the bench's PASSPORT_QUERY, varied then identical, by the bench's
 * load generator (wrk when installed). Prints, per load, the gateway's CPU per answered request
 * (from /proc) and the profile of that window cut out of the process's whole profile, by concern
 * (`concernOf`) and by frame:
 *   node dist/bench/profile-gateway.js [seconds] [out-dir] [--no-profile]
 *   node dist/bench/profile-gateway.js --summarise <file.cpuprofile> <ms CPU per request>
 * `--no-profile` runs the same without the profiler, for its overhead. Findings: bench/PROFILE.md,
 * "The gateway's CPU per request: profile before (issue 39, item 2)".
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--summarise') {
    // A window written before, again (after a change to CONCERNS): --summarise <file.cpuprofile> <ms CPU per request>.
    report(path.basename(args[1]!), JSON.parse(readFileSync(args[1]!, 'utf8')) as CpuProfile, Number(args[2]), args[1]!);
    return;
  }
  if (!sharedDataPresent()) throw new Error('../shared/data is absent');
  const profiled = !args.includes('--no-profile');
  const [seconds = '20', outDir = '/tmp/gateway-profile'] = args.filter((arg) => !arg.startsWith('--'));
  mkdirSync(outDir, { recursive: true });
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-gateway-profile-'));
  const profileDir = path.join(workspace, 'cpuprofile');
  const artifacts = await calculationArtifactHost();
  const processes: ServerProcess[] = [];
  const start = async (name: string, env: Record<string, string>, nodeArgs: string[] = []) => {
    const server = await startServerProcess(name, { ...commonEnv(workspace, name), ...artifacts.env, ...env }, nodeArgs);
    processes.push(server);
    return server;
  };
  const windows: Array<{ name: string; fromUs: number; toUs: number; cpuMs: number; result: LoadResult }> = [];
  let gateway: ServerProcess | undefined;
  try {
    const urls: Record<string, string> = {};
    for (const name of ['models', 'indicators', 'impact']) {
      const subgraph = await start(`subgraph-${name}`, { PROCESS_ROLE: 'subgraph', SUBGRAPH: name, SUBGRAPH_PORT: '0' });
      urls[`${name.toUpperCase()}_SUBGRAPH_URL`] = `http://127.0.0.1:${subgraph.ports[`subgraph:${name}`]}/graphql`;
    }
    gateway = await start('gateway-distributed', { PROCESS_ROLE: 'gateway', ...urls }, profiled ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=500'] : []);
    for (const version of ['0.0.4', ...VARIED_VERSIONS]) await createRecords(`http://127.0.0.1:${gateway.ports.core}`, version);

    const base = `http://127.0.0.1:${gateway.ports.gateway}`;
    const identical: LoadRequest = { method: 'POST', path: '/graphql', body: { query: PASSPORT_QUERY, variables: IDENTICAL_VARIABLES } };
    const loads: Record<string, LoadRequest> = { varied: { ...identical, variableSets: VARIED_VARIABLES }, identical };
    const generator = preferredGenerator();
    console.log(`load generator ${generator}, 1-min load average ${os.loadavg()[0]!.toFixed(2)}`);
    for (const [name, request] of Object.entries(loads)) {
      await load(base, request, { seconds: 5, generator });
      const cpuBefore = gateway.cpuMs();
      // process.hrtime and V8's profile timestamps are both CLOCK_MONOTONIC in µs on Linux: the window can be cut out of the profile.
      const fromUs = Number(process.hrtime.bigint() / 1000n);
      const result = await load(base, request, { seconds: Number(seconds), generator });
      const toUs = Number(process.hrtime.bigint() / 1000n);
      if (result.errors > 0 || result.non2xx > 0) throw new Error(`${name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
      windows.push({ name, fromUs, toUs, cpuMs: (gateway.cpuMs() - cpuBefore) / result.requests, result });
      console.log(
        `${name}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, ${result.requests} answers, gateway CPU ${windows.at(-1)!.cpuMs.toFixed(2)} ms/request, load average ${os.loadavg()[0]!.toFixed(2)}`,
      );
    }
  } finally {
    // The gateway first: its profile is written as it exits.
    for (const server of processes.reverse()) await server.stop();
    artifacts.close();
  }
  try {
    if (!profiled) return;
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the gateway wrote no profile (killed before it exited?)');
    const whole = JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile & { startTime: number; timeDeltas: number[] };
    for (const window of windows) {
      const profile = cut(whole, window.fromUs, window.toUs);
      const out = path.join(outDir, `gateway-${window.name}.cpuprofile`);
      writeFileSync(out, JSON.stringify(profile));
      report(window.name, profile, window.cpuMs, out);
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The samples of `profile` taken between `fromUs` and `toUs` (V8's monotonic clock). */
function cut(profile: CpuProfile & { startTime: number; timeDeltas: number[] }, fromUs: number, toUs: number): CpuProfile {
  const samples: number[] = [];
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i]!;
    if (at >= fromUs && at <= toUs) samples.push(id);
  });
  return { nodes: profile.nodes, samples };
}

/**
 * The concern a stack's CPU belongs to: the first frame from the leaf up that one of these rules
 * names (a frame's url or function name), so that a helper is charged to whoever called it.
 * Order matters where a stack crosses concerns: the subgraph HTTP client's frames before the
 * executor that calls them, the executor before the pipeline that calls it.
 */
const CLIENT_CONCERN = 'Subgraph HTTP client (node:http, sockets)';
const SERVER_CONCERN = 'HTTP server, body reading, answer writing (express, node:http)';
const CONCERNS: Array<[concern: string, test: (url: string, fn: string) => boolean]> = [
  ['GC', (_url, fn) => fn === '(garbage collector)'],
  ['Serialisation of the answer', (url, fn) => /kernel\/http\/(json-pieces|answer-text)|kernel\/raw-json|graphql-endpoint/.test(url) || (url.includes('apollo-door') && /stringify|pieces/i.test(fn))],
  // `exchange` is where JSON.stringify of the subgraph request and JSON.parse of its answer run (builtins: their time is its self time);
  // passthrough.ts's scan of the subtrees kept as text stands in for part of that parse.
  ['Subgraph fetch: JSON.stringify / JSON.parse, passthrough scan', (url, fn) => (url.includes('gateway/executor/remote-client') && fn === 'exchange') || url.includes('gateway/executor/passthrough')],
  [CLIENT_CONCERN, (url) => /_http_client|_http_agent|gateway\/executor\/(remote-client|subgraph-client)/.test(url)],
  ['In-flight sharing', (url) => url.includes('gateway/executor/inflight-sharing')],
  ['Result shaping', (url) => url.includes('gateway/executor/result-shaping')],
  ['Planning (Hive planner, plan cache)', (url) => /gateway\/executor\/(planner|supergraph|hive\/hive-planned-operations|apollo-planner\/planned-operations)|@graphql-hive|query-planner/.test(url)],
  ['Executor (fetches, variables, merging)', (url) => /gateway\/executor\//.test(url)],
  ['Usage reporting', (url) => url.includes('gateway/usage/')],
  ['Metrics', (url) => /request-metrics|subgraph-fetch-metrics|kernel\/metrics|prom-client/.test(url)],
  ['Access log (pino)', (url) => /access-log|server-error-log|pino|sonic-boom|fast-redact|kernel\/logger/.test(url)],
  ['Request budget', (url) => /request-budget|budgeted-answer|demand-control/.test(url)],
  ['Limits (operation, document size)', (url) => /operation-limits|document-size-limits|pipeline\/limits\//.test(url)],
  ['Request id, secret, credentials, timeout', (url) => /request-id|gateway-secret|forwarded-credentials|upstream-timeout/.test(url)],
  ['Parse, validate, document cache', (url) => /graphql\/(language|validation)|document-cache|document-lru|trusted-documents|graphql-door/.test(url)],
  ['GraphQL execution (graphql-js)', (url) => /graphql\/(execution|type|utilities|jsutils)/.test(url)],
  ['Apollo Server request pipeline', (url) => /@apollo\/server|apollo-door|apollo-answers|@apollo\/utils|graphql-run/.test(url)],
  ['Pipeline (other)', (url) => url.includes('/pipeline/')],
  [SERVER_CONCERN, (url) => /_http_server|_http_incoming|_http_outgoing|_http_common|kernel\/http\/|\/server\/|express|body-parser|router|raw-body|finalhandler|send\//.test(url)],
];

/** What a stack none of CONCERNS names is charged to. */
const UNATTRIBUTED_NODE = 'Node streams, sockets, timers (unattributed)';

/** node:http's modules that a server response and a client request share: the stack says which it is. */
const SHARED_HTTP = /_http_outgoing|_http_common|_http_incoming|node:net|stream_base_commons/;
const CLIENT_HTTP = /_http_client|_http_agent|gateway\/executor\/remote-client/;

function concernOf(stack: Array<{ url: string; functionName: string }>): string {
  for (const frame of stack) {
    if (SHARED_HTTP.test(frame.url)) return stack.some((other) => CLIENT_HTTP.test(other.url)) ? CLIENT_CONCERN : SERVER_CONCERN;
    for (const [concern, test] of CONCERNS) if (test(frame.url, frame.functionName)) return concern;
  }
  const leaf = stack[0]!;
  if (stack.some((frame) => frame.url.startsWith('node:'))) return UNATTRIBUTED_NODE;
  return leaf.url ? 'Other JavaScript' : `(${leaf.functionName || 'native'})`;
}

function report(name: string, bundled: CpuProfile, cpuMsPerRequest: number, file: string): void {
  const profile = inSources(bundled);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const counts = new Map<string, number>();
  const framesByConcern = new Map<string, Map<string, number>>();
  let busy = 0;
  for (const id of profile.samples) {
    const stack: Array<{ url: string; functionName: string }> = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!.callFrame);
    if (stack[0]!.functionName === '(idle)') continue;
    busy++;
    const concern = concernOf(stack);
    counts.set(concern, (counts.get(concern) ?? 0) + 1);
    const frames = framesByConcern.get(concern) ?? new Map<string, number>();
    const leaf = `${stack[0]!.functionName || '(anonymous)'} ${shortUrl(stack[0]!.url)}`;
    frames.set(leaf, (frames.get(leaf) ?? 0) + 1);
    framesByConcern.set(concern, frames);
  }
  console.log(`\n${name}: ${profile.samples.length} samples, ${busy} busy (not idle), ${cpuMsPerRequest.toFixed(2)} ms CPU per request → ${file}`);
  console.log('| concern | % of busy samples | ms per request | its top leaf frames, % of busy samples |');
  console.log('|---|---|---|---|');
  for (const [concern, count] of [...counts].sort((a, b) => b[1] - a[1])) {
    const frames = [...framesByConcern.get(concern)!].sort((a, b) => b[1] - a[1]).slice(0, 3);
    const leaves = frames.map(([frame, n]) => `${frame} ${((100 * n) / busy).toFixed(1)}`).join('; ');
    console.log(`| ${concern} | ${((100 * count) / busy).toFixed(1)} | ${((cpuMsPerRequest * count) / busy).toFixed(2)} | ${leaves} |`);
  }
  const summary = summarise(profile);
  console.log('\ntop self time (% of all samples, idle included):');
  for (const [frame, share] of summary.self.slice(0, 25)) console.log(`${share.toFixed(1).padStart(5)}%  ${frame}`);
  console.log('\ntop packages:');
  for (const [pkg, share] of summary.packages.slice(0, 15)) console.log(`${share.toFixed(1).padStart(5)}%  ${pkg}`);
}

await main();
