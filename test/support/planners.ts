import { type PlannerMode, choosePlanner } from '../../gateway/executor/planner.js';

/** The planner a deployment of this machine runs on: Hive's where its binary loads (as GATEWAY_PLANNER unset chooses). */
export const DEPLOYED_PLANNER: PlannerMode = choosePlanner(undefined).mode;

/**
 * Both planners: Hive's, and Apollo's (the fallback where Hive's binary does not load), for the
 * tests that run in-process gateways on each, by the gateway's `planner` option (no setting picks
 * Apollo's where Hive's loads).
 */
export const PLANNERS: readonly PlannerMode[] = ['hive', 'apollo'];
