import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { type Figure, round } from './figures.js';
import { compareSettings, describeComparison } from './setting-comparison.js';
import { calculationArtifactHost, sharedDataPresent } from './fixtures.js';
import { PASSPORT_QUERY, VARIED_VARIABLES, VARIED_VERSIONS, commonEnv, createRecords } from './gateway.bench.js';

// Many short rounds, the ratio taken pair of rounds by pair (load.ts, alternatedRatio): load from
// elsewhere on a shared machine comes in bursts of seconds, which a few long rounds let land on one
// side only (3 rounds of 4 s gave the same code 0.85 and 1.00).
const ROUNDS = 40;
const SECONDS = 3; // whole seconds: wrk's -d takes no fraction
// A process reaches its pace after about 8 s of this load (its JIT warm-up): before, 150 to 180 req/s against 250 to 380 after.
const WARM_UP_SECONDS = 10;
// Then rounds in turns, left out: the pace still rises for a minute (setting-comparison.ts).
const WARM_UP_ROUNDS = 8;
/** Every cap of the request budget off (kernel/request-budget.ts), and the process's answer memory (kernel/answer-memory.ts): no budget is made at all. */
const BUDGET_OFF = { REQUEST_MAX_RESPONSE_BYTES: '0', REQUEST_MAX_RECORDS_READ: '0', REQUEST_MAX_DURATION_MS: '0', PROCESS_MAX_ANSWER_MB: '0' };

/**
 * `gateway.budget_overhead.rps_ratio`: what the runtime budget costs (issue 24, item 3). Two
 * systems (PROCESS_ROLE=all, the gateway bench's setup and records) in one process, one with the
 * default budget, one with every cap at 0, under the gateway bench's varied load (its passport
 * query over the three subgraphs, 100 variable sets round-robin), in turns: the process is never idle, and
 * what differs between the two is the budget alone (setting-comparison.ts, each setting in both places).
 * `--only budget` runs it.
 */
export async function benchBudget(): Promise<Figure[]> {
  if (!sharedDataPresent()) {
    console.warn('budget bench skipped: ../shared/data is absent');
    return [];
  }
  const workspace = mkdtempSync(path.join(tmpdir(), 'cerise-budget-bench-'));
  const artifacts = await calculationArtifactHost();
  try {
    const env = (name: string) => ({ ...commonEnv(workspace, name), ...artifacts.env, PROCESS_ROLE: 'all' });
    const comparison = await compareSettings('budget', {
      on: env('budget-on'),
      off: { ...env('budget-off'), ...BUDGET_OFF },
      request: { method: 'POST', path: '/graphql', body: { query: PASSPORT_QUERY }, variableSets: VARIED_VARIABLES },
      rounds: ROUNDS,
      seconds: SECONDS,
      warmUpSeconds: WARM_UP_SECONDS,
      warmUpRounds: WARM_UP_ROUNDS,
      // Each placement's pair opens the same databases: the records' idempotency keys make the second creation a no-op.
      prepare: async (pair) => {
        for (const side of ['a', 'b']) {
          for (const version of ['0.0.4', ...VARIED_VERSIONS]) await createRecords(`http://127.0.0.1:${pair.ports[`${side}:core`]}`, version);
        }
      },
    });
    const note =
      `POST /graphql, the gateway bench's passport query (three subgraphs, 10 records with payloads), varied load (${VARIED_VARIABLES.length} variable sets round-robin), ` +
      `two PROCESS_ROLE=all systems in one process (NODE_ENV=production, SQLite each; bench/setting-comparison.ts), load generator ${comparison.generator}, ` +
      `${ROUNDS} rounds of ${SECONDS} s on each system, half with the budget on as the pair's first system and half as its second (a pair process each, ${WARM_UP_SECONDS} s of warm-up each, then ${WARM_UP_ROUNDS} rounds in turns left out), ` +
      `in turns, the order reversed every other round, on ${os.cpus().length} CPUs; the geometric mean of the two placements' trimmed means of pairs of rounds; ` +
      `budget on (defaults) ÷ off (REQUEST_MAX_* = 0, PROCESS_MAX_ANSWER_MB = 0): ${describeComparison(comparison)}`;
    return [
      {
        id: 'gateway.budget_overhead.rps_ratio',
        value: round(comparison.ratio, 3),
        unit: 'x',
        target: 0.97,
        better: 'higher',
        note: `throughput with the runtime budget on ÷ off; ${note}`,
      },
    ];
  } finally {
    artifacts.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}
