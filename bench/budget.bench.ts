import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { type Figure, round } from './figures.js';
import { type LoadRequest, type Side, compareLoads } from './load.js';
import { type ServerProcess, startServerProcess } from './processes.js';
import { preferredGenerator } from './wrk.js';
import { calculationArtifactHost, sharedDataPresent } from './fixtures.js';
import { PASSPORT_QUERY, VARIED_VARIABLES, VARIED_VERSIONS, commonEnv, createRecords } from './gateway.bench.js';

const ROUNDS = 3;
const SECONDS = 4;
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
    const gateway = (server: ServerProcess) => `http://127.0.0.1:${server.ports.gateway}`;
    const generator = preferredGenerator();
    const options = { rounds: ROUNDS, seconds: SECONDS, cpuMs: { on: () => on.cpuMs(), off: () => off.cpuMs() }, generator };
    // Each order in turn: the side that runs first in a round measured slower on a loaded machine, budget or not.
    const onFirst = await compareLoads(request, { on: gateway(on), off: gateway(off) }, options);
    const offFirst = await compareLoads(request, { off: gateway(off), on: gateway(on) }, options);
    const c = { ...onFirst, rounds: onFirst.rounds * 2 };
    for (const comparison of [onFirst, offFirst]) {
      for (const [name, side] of Object.entries(comparison.sides)) {
        if (side.result.errors > 0 || side.result.non2xx > 0) throw new Error(`gateway.budget_${name}: ${side.result.errors} errors, ${side.result.non2xx} non-2xx answers under load`);
      }
    }
    const both = (pick: (side: Side) => number, name: 'on' | 'off') => Math.sqrt(pick(onFirst.sides[name]) * pick(offFirst.sides[name]));
    const sideOf = (name: 'on' | 'off') => ({
      result: {
        rps: both((s) => s.result.rps, name),
        p50: round(
          both((s) => s.result.p50, name),
          3,
        ),
      },
      cpuMs: both((s) => s.cpuMs, name),
    });
    const [withBudget, without] = [sideOf('on'), sideOf('off')];
    const note =
      `POST /graphql, the gateway bench's passport query (three subgraphs, 10 records with payloads), varied load (${VARIED_VARIABLES.length} variable sets round-robin), ` +
      `PROCESS_ROLE=all, WORKERS=1, NODE_ENV=production, SQLite, load generator ${generator}, geometric mean of two orders (budget on first, then off first), each the median of ${ROUNDS} interleaved ${c.seconds} s rounds on ${os.cpus().length} CPUs; ` +
      `budget on (defaults): ${round(withBudget.result.rps, 0)} req/s p50 ${withBudget.result.p50} ms ${round(withBudget.cpuMs, 2)} ms CPU/req; ` +
      `budget off (REQUEST_MAX_* = 0): ${round(without.result.rps, 0)} req/s p50 ${without.result.p50} ms ${round(without.cpuMs, 2)} ms CPU/req`;
    return [
      {
        id: 'gateway.budget_overhead.rps_ratio',
        value: round(withBudget.result.rps / without.result.rps, 3),
        unit: 'x',
        target: 0.97,
        better: 'higher',
        note: `throughput with the runtime budget on ÷ off; ${note}`,
      },
      { id: 'gateway.budget_overhead.cpu_ratio', value: round(withBudget.cpuMs / without.cpuMs, 3), unit: 'x', better: 'lower', note: `CPU per request with the runtime budget on ÷ off; ${note}` },
    ];
  } finally {
    for (const server of processes.reverse()) await server.stop();
    artifacts.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}
