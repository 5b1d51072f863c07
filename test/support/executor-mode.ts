import { EXECUTOR_MODES, type ExecutorMode } from '../../gateway/executor/executor.js';
import { PLANNER_MODES, type PlannerMode, choosePlanner } from '../../gateway/executor/planner.js';

/**
 * The gateway executor the suite runs in: `GATEWAY_EXECUTOR` of the environment `npm test` runs in
 * (`.ci/run` runs the suite in both), `planned` when unset. Every system a test starts uses it.
 */
export const GATEWAY_EXECUTOR: ExecutorMode = (() => {
  const mode = process.env.GATEWAY_EXECUTOR ?? 'planned';
  if (!(EXECUTOR_MODES as readonly string[]).includes(mode)) throw new Error(`GATEWAY_EXECUTOR must be one of ${EXECUTOR_MODES.join(', ')}`);
  return mode as ExecutorMode;
})();

/**
 * The planner the suite's planned executor runs on: `GATEWAY_PLANNER` of the environment, else
 * Hive's where it loads (as a deployment chooses).
 */
export const GATEWAY_PLANNER: PlannerMode = (() => {
  const requested = process.env.GATEWAY_PLANNER;
  if (requested !== undefined && !(PLANNER_MODES as readonly string[]).includes(requested)) throw new Error(`GATEWAY_PLANNER must be one of ${PLANNER_MODES.join(', ')}`);
  return choosePlanner(requested as PlannerMode | undefined).mode;
})();

/** For a system's environment: GATEWAY_PLANNER when the suite's environment sets it; unset otherwise, as a deployment leaves it. */
export function plannerOfTheSuite(): { GATEWAY_PLANNER?: string } {
  return process.env.GATEWAY_PLANNER ? { GATEWAY_PLANNER: process.env.GATEWAY_PLANNER } : {};
}
