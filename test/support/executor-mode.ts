import { EXECUTOR_MODES, type ExecutorMode } from '../../gateway/executor/executor.js';

/**
 * The gateway executor the suite runs in: `GATEWAY_EXECUTOR` of the environment `npm test` runs in
 * (`.ci/run` runs the suite in both), `planned` when unset. Every system a test starts uses it.
 */
export const GATEWAY_EXECUTOR: ExecutorMode = (() => {
  const mode = process.env.GATEWAY_EXECUTOR ?? 'planned';
  if (!(EXECUTOR_MODES as readonly string[]).includes(mode)) throw new Error(`GATEWAY_EXECUTOR must be one of ${EXECUTOR_MODES.join(', ')}`);
  return mode as ExecutorMode;
})();
