import { createRequire } from 'node:module';
import type { QueryPlanner as HiveQueryPlanner } from '@graphql-hive/router-query-planner';

/**
 * Who plans the operations the project's executor runs: Hive Router's query planner
 * (`@graphql-hive/router-query-planner`, Rust, a prebuilt binary for Linux and macOS on glibc, x64
 * and arm64), whose plans hive/ runs; it plans the cases Apollo's planner gets wrong
 * (docs/FEDERATION-AUDIT.md). Apollo's query planner (apollo-planner/) is only the fallback where
 * Hive's binary does not load, with one warning line (`GATEWAY_PLANNER=hive`: a configuration error
 * instead). No setting picks Apollo's where Hive's loads (`GATEWAY_PLANNER=apollo` is retired:
 * server/config.ts); the tests and the federation audit do, by the gateway's `planner` option.
 */
export type PlannerMode = 'hive' | 'apollo';

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
 * The planner this process runs on: Hive's where it loads, Apollo's otherwise. Asking for `hive`
 * where it cannot load is an error (the operator asked for that planner by name).
 */
export function choosePlanner(requested: 'hive' | undefined): PlannerChoice {
  const hive = loadHivePlanner();
  if ('planner' in hive) return { mode: 'hive' };
  const reason = `Hive's query planner cannot be loaded on ${process.platform}-${process.arch} (${hive.error.message.split('\n')[0]})`;
  if (requested === 'hive') throw new Error(reason);
  return { mode: 'apollo', fallback: `${reason}: planning with @apollo/gateway's planner` };
}
