import { createRequire } from 'node:module';
import type { QueryPlanner as HiveQueryPlanner } from '@graphql-hive/router-query-planner';

/**
 * `GATEWAY_PLANNER`: who plans the operations the project's executor runs. `hive`: Hive Router's
 * query planner (`@graphql-hive/router-query-planner`, Rust, a prebuilt binary for Linux and macOS on
 * glibc, x64 and arm64), whose plans hive/ runs; it plans the cases Apollo's planner gets wrong
 * (docs/FEDERATION-AUDIT.md). `apollo`: Apollo's query planner (apollo-planner/), the fallback.
 * Unset: `hive` where its binary loads, `apollo` otherwise, with one warning line.
 */
export const PLANNER_MODES = ['hive', 'apollo'] as const;
export type PlannerMode = (typeof PLANNER_MODES)[number];

export interface PlannerChoice {
  mode: PlannerMode;
  /** Why Hive's planner, the default, is not used here: said once in a warning line at start-up. */
  fallback?: string;
}

export type HivePlannerClass = typeof HiveQueryPlanner;

let loaded: { planner: HivePlannerClass } | { error: Error } | undefined;

/**
 * Hive's planner class, or why its native binary does not load on this platform (Alpine/musl,
 * Windows, a binary removed from the image). Loaded once per process, synchronously, as its
 * package's own loader does (`require` of the `.node` file).
 */
export function loadHivePlanner(): { planner: HivePlannerClass } | { error: Error } {
  if (!loaded) {
    try {
      const module = createRequire(import.meta.url)('@graphql-hive/router-query-planner') as { QueryPlanner: HivePlannerClass };
      loaded = { planner: module.QueryPlanner };
    } catch (error) {
      loaded = { error: error as Error };
    }
  }
  return loaded;
}

/**
 * The planner this process runs on: the one asked for, or by default Hive's where it loads. Asking
 * for `hive` where it cannot load is an error (the operator asked for that planner by name).
 */
export function choosePlanner(requested: PlannerMode | undefined): PlannerChoice {
  if (requested === 'apollo') return { mode: 'apollo' };
  const hive = loadHivePlanner();
  if ('planner' in hive) return { mode: 'hive' };
  const reason = `Hive's query planner cannot be loaded on ${process.platform}-${process.arch} (${hive.error.message.split('\n')[0]})`;
  if (requested === 'hive') throw new Error(reason);
  return { mode: 'apollo', fallback: `${reason}: planning with @apollo/gateway's planner` };
}
