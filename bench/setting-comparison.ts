import { round } from './figures.js';
import { type LoadRequest, type LoadResult, alternatedRatio, compareLoads, medianOf } from './load.js';
import { type ServerProcess, startSystemPair } from './processes.js';
import { preferredGenerator } from './wrk.js';

export interface SettingComparison {
  /** on ÷ off: the geometric mean of the two placements' ratios. */
  ratio: number;
  /** Per placement (`on` as the pair's first system, then as its second), its median and pairs of rounds. */
  placements: Array<{ onSide: 'a' | 'b'; ratio: number; pairs: number[] }>;
  /** Every round of each setting, both placements. */
  rounds: Record<'on' | 'off', LoadResult[]>;
  generator: 'wrk' | 'autocannon';
}

export interface ComparisonPlan {
  /** Each setting's whole environment (the system pair's sides). */
  on: Record<string, string>;
  off: Record<string, string>;
  request: LoadRequest;
  /** Over both placements: half in each. */
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  /** Run once a pair listens, before its load (records to read, say). */
  prepare?: (pair: ServerProcess) => Promise<void>;
}

/**
 * A setting on ÷ off as the overhead figures measure it (budget, usage): two systems in one process
 * (processes.ts, startSystemPair), their gateways loaded in turns with the order reversed every other
 * round (load.ts, alternatedRatio). The first system of a pair's process runs about 1.7% slower than
 * the second (bench/PROFILE.md, "Which side a system is"), so half the rounds run in a second pair
 * process with the sides swapped, and the figure is the geometric mean of the two placements'
 * ratios: the place cancels out as the order does.
 */
export async function compareSettings(name: string, plan: ComparisonPlan): Promise<SettingComparison> {
  const generator = preferredGenerator();
  const placements: SettingComparison['placements'] = [];
  const rounds: SettingComparison['rounds'] = { on: [], off: [] };
  for (const onSide of ['a', 'b'] as const) {
    const [a, b] = onSide === 'a' ? [plan.on, plan.off] : [plan.off, plan.on];
    const pair = await startSystemPair(name, a, b, { NODE_ENV: 'production' });
    try {
      await plan.prepare?.(pair);
      const gateway = (side: 'a' | 'b') => `http://127.0.0.1:${pair.ports[`${side}:gateway`]}`;
      const offSide = onSide === 'a' ? 'b' : 'a';
      const { sides } = await compareLoads(
        plan.request,
        { on: gateway(onSide), off: gateway(offSide) },
        { rounds: plan.rounds / 2, seconds: plan.seconds, warmUpSeconds: plan.warmUpSeconds, alternate: true, generator },
      );
      for (const setting of ['on', 'off'] as const) {
        const failed = sides[setting].rounds.filter((r) => r.errors > 0 || r.non2xx > 0);
        if (failed.length > 0) throw new Error(`${name} (${setting}): errors or non-2xx answers under load in ${failed.length} rounds`);
        rounds[setting].push(...sides[setting].rounds);
      }
      const { ratio, pairs } = alternatedRatio(
        sides.on.rounds.map((r) => r.rps),
        sides.off.rounds.map((r) => r.rps),
      );
      placements.push({ onSide, ratio, pairs });
    } finally {
      await pair.stop();
    }
  }
  return { ratio: Math.sqrt(placements[0]!.ratio * placements[1]!.ratio), placements, rounds, generator };
}

/** A comparison's figures for a note: each placement's ratio and pairs, then each setting's median rate. */
export function describeComparison(comparison: SettingComparison): string {
  const placements = comparison.placements.map((p) => `on as ${p.onSide}: ${round(p.ratio, 3)} (pairs ${p.pairs.map((r) => round(r, 3)).join(', ')})`).join('; ');
  return `${placements}; on ${round(medianOf(comparison.rounds.on).rps, 0)} req/s, off ${round(medianOf(comparison.rounds.off).rps, 0)} req/s (medians of the rounds)`;
}
