import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { type Figure, round } from './figures.js';
import { type LoadRequest, alternatedRatio, compareLoads } from './load.js';
import { type ServerProcess, startServerProcess } from './processes.js';
import { preferredGenerator } from './wrk.js';
import { calculationArtifactHost, sharedDataPresent } from './fixtures.js';
import { PASSPORT_QUERY, VARIED_VARIABLES, VARIED_VERSIONS, commonEnv, createRecords } from './gateway.bench.js';

// Many short rounds, the ratio taken pair of rounds by pair (load.ts, alternatedRatio): load from
// elsewhere on a shared machine comes in bursts of seconds, which a few long rounds let land on one
// side only (3 rounds of 4 s gave the same code 0.85 and 1.00).
const ROUNDS = 20;
const SECONDS = 3; // whole seconds: wrk's -d takes no fraction
// A process reaches its pace after about 8 s of this load (its JIT warm-up): before, 150 to 180 req/s against 250 to 380 after.
const WARM_UP_SECONDS = 10;
/** Every cap of the request budget off (kernel/request-budget.ts): no budget is made at all. */
const BUDGET_OFF = { REQUEST_MAX_RESPONSE_BYTES: '0', REQUEST_MAX_RECORDS_READ: '0', REQUEST_MAX_DURATION_MS: '0' };

/**
 * `gateway.budget_overhead.rps_ratio`: what the runtime budget costs (issue 24, item 3). Two
 * in-process systems (PROCESS_ROLE=all, WORKERS=1, the gateway bench's setup and records), one with
 * the default budget, one with every cap at 0, under the gateway bench's varied load (its passport
 * query over the three subgraphs, 100 variable sets round-robin), rounds interleaved.
 * `--only budget` runs it.
 */
export async function benchBudget(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('budget bench skipped: ../shared/data is absent');
    return [];
  }
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-budget-bench-'));
  const artifacts = await calculationArtifactHost();
  const processes: ServerProcess[] = [];
  try {
    const start = async (name: string, env: Record<string, string>) => {
      const server = await startServerProcess(name, { ...commonEnv(workspace, name), ...artifacts.env, PROCESS_ROLE: 'all', ...env });
      processes.push(server);
      return server;
    };
    const on = await start('budget-on', {});
    const off = await start('budget-off', BUDGET_OFF);
    for (const system of [on, off]) {
      for (const version of ['0.0.4', ...VARIED_VERSIONS]) await createRecords(`http://127.0.0.1:${system.ports.core}`, version);
    }
    const request: LoadRequest = { method: 'POST', path: '/graphql', body: { query: PASSPORT_QUERY }, variableSets: VARIED_VARIABLES };
    const generator = preferredGenerator();
    const gateway = (server: ServerProcess) => `http://127.0.0.1:${server.ports.gateway}`;
    const { sides } = await compareLoads(
      request,
      { on: gateway(on), off: gateway(off) },
      { rounds: ROUNDS, seconds: SECONDS, warmUpSeconds: WARM_UP_SECONDS, alternate: true, cpuMs: { on: () => on.cpuMs(), off: () => off.cpuMs() }, generator },
    );
    for (const [name, side] of Object.entries(sides)) {
      const failed = side.rounds.filter((r) => r.errors > 0 || r.non2xx > 0);
      if (failed.length > 0) throw new Error(`gateway.budget_overhead (${name}): errors or non-2xx answers under load in ${failed.length} rounds`);
    }
    const rps = alternatedRatio(
      sides.on.rounds.map((r) => r.rps),
      sides.off.rounds.map((r) => r.rps),
    );
    const cpu = alternatedRatio(sides.on.roundCpuMs, sides.off.roundCpuMs);
    const rounds = sides.on.rounds.map((r, i) => round(r.rps / sides.off.rounds[i]!.rps, 2));
    const summary = (name: 'on' | 'off') => {
      const { result, cpuMs } = sides[name];
      return `${round(result.rps, 0)} req/s p50 ${round(result.p50, 1)} ms ${round(cpuMs, 2)} ms CPU/req`;
    };
    const note =
      `POST /graphql, the gateway bench's passport query (three subgraphs, 10 records with payloads), varied load (${VARIED_VARIABLES.length} variable sets round-robin), ` +
      `PROCESS_ROLE=all, WORKERS=1, NODE_ENV=production, SQLite, load generator ${generator}, ${ROUNDS} rounds of ${SECONDS} s on each side, the sides alternating (each first in every other round) on ${os.cpus().length} CPUs, ` +
      `the median of the ${rps.pairs.length} pairs of rounds (one in each order, the geometric mean of their ratios: ${rps.pairs.map((r) => round(r, 3)).join(', ')}; ` +
      `on ÷ off round by round: ${rounds.join(', ')}); ` +
      `budget on (defaults): ${summary('on')}; budget off (REQUEST_MAX_* = 0): ${summary('off')} (req/s and p50: medians of the rounds; CPU: over all of them)`;
    return [
      {
        id: 'gateway.budget_overhead.rps_ratio',
        value: round(rps.ratio, 3),
        unit: 'x',
        target: 0.97,
        better: 'higher',
        note: `throughput with the runtime budget on ÷ off; ${note}`,
      },
      { id: 'gateway.budget_overhead.cpu_ratio', value: round(cpu.ratio, 3), unit: 'x', better: 'lower', note: `CPU per request with the runtime budget on ÷ off; ${note}` },
    ];
  } finally {
    for (const server of processes.reverse()) await server.stop();
    artifacts.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}
