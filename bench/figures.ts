/** One figure of `bench-results.json` (`../shared/bench-format.md`). */
export interface Figure {
  id: string;
  value: number;
  unit: string;
  target?: number;
  better: 'lower' | 'higher';
  note: string;
}

export function meetsTarget(figure: Figure): boolean | undefined {
  if (figure.target === undefined) return undefined;
  return figure.better === 'lower' ? figure.value <= figure.target : figure.value >= figure.target;
}

/** The p-th percentile (0..100) of samples, nearest-rank. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
