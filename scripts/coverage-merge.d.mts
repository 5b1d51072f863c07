export declare const PRODUCTION_FOLDERS: readonly string[];
/** Covered of total (pct: 0–100), and what each side alone covered. */
export interface Figure {
  covered: number;
  total: number;
  pct: number;
  inProcess: number;
  children: number;
}
export interface Figures {
  lines: Figure;
  branches: Figure;
}
export interface Summary {
  total: Figures;
  folders: Record<string, Figures>;
  /** Keyed by the .ts file's path relative to the root. */
  files: Record<string, Figures>;
}
/** istanbul's coverage-final.json (as v8-to-istanbul writes it), keyed by absolute path. */
export type CoverageMap = Record<string, unknown>;
export declare function mergeCoverage(input: { root: string; inProcess: CoverageMap; children: CoverageMap }): Summary;
export declare function printSummary(summary: Summary): void;
