import { round } from './figures.js';
import { type LoadRequest, type LoadResult, alternatedRatio, compareLoads, medianOf } from './load.js';
import { type ServerProcess, startSystemPair } from './processes.js';
import { preferredGenerator } from './wrk.js';

/** The share of pairs left out at each end of a placement's (pairedRatio). */
const TRIMMED = 0.2;

export interface SettingComparison {
  /** on ÷ off: the geometric mean of the two placements' ratios (each its pairs' trimmed mean, `pairedRatio`). */
  ratio: number;
  /** Per placement (`on` as the pair's first system, then as its second), its ratio and pairs of rounds. */
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
  /** Rounds in turns before those measured, in each placement, discarded (an even number: whole pairs). */
  warmUpRounds: number;
  /** Run once a pair listens, before its load (records to read, say). */
  prepare?: (pair: ServerProcess) => Promise<void>;
}

/**
 * A setting on ÷ off as the overhead figures measure it (budget, usage): two systems in one process
 * (processes.ts, startSystemPair), their gateways loaded in turns with the order reversed every other
 * round (load.ts, alternatedRatio). A system's place in the pair's process shifts its rate by a few
 * percent (bench/PROFILE.md, "Which side a system is"), so half the rounds run in a second pair
 * process with the sides swapped, and the figure is the geometric mean of the two placements'
 * ratios: the place cancels out as the order does. A process still gains pace for a minute or so
 * after its first load, so each placement's first `warmUpRounds` are run in turns and left out.
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
        { rounds: plan.warmUpRounds + plan.rounds / 2, seconds: plan.seconds, warmUpSeconds: plan.warmUpSeconds, alternate: true, generator },
      );
      const measured = { on: sides.on.rounds.slice(plan.warmUpRounds), off: sides.off.rounds.slice(plan.warmUpRounds) };
      for (const setting of ['on', 'off'] as const) {
        const failed = sides[setting].rounds.filter((r) => r.errors > 0 || r.non2xx > 0);
        if (failed.length > 0) throw new Error(`${name} (${setting}): errors or non-2xx answers under load in ${failed.length} rounds`);
        rounds[setting].push(...measured[setting]);
      }
      const { pairs } = alternatedRatio(
        measured.on.map((r) => r.rps),
        measured.off.map((r) => r.rps),
      );
      placements.push({ onSide, ratio: pairedRatio(pairs), pairs });
    } finally {
      await pair.stop();
    }
  }
  return { ratio: Math.sqrt(placements[0]!.ratio * placements[1]!.ratio), placements, rounds, generator };
}

/**
 * The pairs' trimmed geometric mean: the fifth of pairs at each end left out, the rest averaged as
 * logarithms. A pair of 3 s rounds scatters by about 4% on a 2-CPU machine however warm the process
 * (bench/PROFILE.md, "How precise a setting's figure is"), and the median of pairs uses them about
 * two thirds as well as a mean does; trimmed, a burst of load from elsewhere still stays out.
 */
function pairedRatio(pairs: readonly number[]): number {
  const logs = pairs.map(Math.log).sort((x, y) => x - y);
  const cut = Math.floor(logs.length * TRIMMED);
  const kept = logs.slice(cut, logs.length - cut);
  return Math.exp(kept.reduce((sum, x) => sum + x, 0) / kept.length);
}

/** A comparison's figures for a note: each placement's ratio and pairs, then each setting's median rate. */
export function describeComparison(comparison: SettingComparison): string {
  const placements = comparison.placements.map((p) => `on as ${p.onSide}: ${round(p.ratio, 3)} (pairs ${p.pairs.map((r) => round(r, 3)).join(', ')})`).join('; ');
  return `${placements}; on ${round(medianOf(comparison.rounds.on).rps, 0)} req/s, off ${round(medianOf(comparison.rounds.off).rps, 0)} req/s (medians of the rounds)`;
}
