/**
 * Loaded with `--import` into the jest process by scripts/coverage.mjs, and nowhere else: every
 * process and worker thread the tests start writes its V8 coverage into COVERAGE_CHILD_DIR.
 *
 * Node writes a process's coverage when NODE_V8_COVERAGE is in its environment at start. The jest
 * process itself is measured by jest (`--coverage`), so the variable is set here, after this
 * process started: what inherits the environment (a spawn without `env`, a worker thread, a cluster
 * worker) gets it from process.env; a spawn that builds its child's environment from scratch
 * (test/support/server-process.ts) gets it added to that environment. Nothing else a child sees
 * changes. A grandchild whose parent builds its environment from scratch without this file loaded
 * (the servers a nested jest run starts) is not measured.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { isMainThread } from 'node:worker_threads';

// A worker thread of the jest process (a system started in it prepares artifacts in one) inherits
// this --import but not COVERAGE_CHILD_DIR, which the main thread took out: the main thread's
// wrapping of child_process is what its processes need, and the thread starts none.
const dir = isMainThread ? process.env.COVERAGE_CHILD_DIR : process.env.NODE_V8_COVERAGE;
if (!dir) throw new Error('scripts/coverage-children.mjs: COVERAGE_CHILD_DIR is not set (run `npm run coverage`)');
delete process.env.COVERAGE_CHILD_DIR;
process.env.NODE_V8_COVERAGE = dir;

// spawn, fork, exec and execFile all start their child through ChildProcess#spawn, with the environment already flattened.
const spawn = childProcess.ChildProcess.prototype.spawn;
childProcess.ChildProcess.prototype.spawn = function spawnMeasured(options) {
  if (!options.envPairs.some((pair) => pair.startsWith('NODE_V8_COVERAGE='))) options.envPairs = [...options.envPairs, `NODE_V8_COVERAGE=${dir}`];
  return spawn.call(this, options);
};

// The synchronous ones do not: their options are completed before the call. Without `env` the child inherits process.env.
for (const name of ['spawnSync', 'execFileSync', 'execSync']) {
  const original = childProcess[name];
  childProcess[name] = function measured(...args) {
    const last = args.at(-1);
    const options = args.length > 1 && typeof last === 'object' && last !== null && !Array.isArray(last) ? last : undefined;
    if (options?.env === undefined || options.env.NODE_V8_COVERAGE !== undefined) return original.apply(this, args);
    return original.apply(this, [...args.slice(0, -1), { ...options, env: { ...options.env, NODE_V8_COVERAGE: dir } }]);
  };
}
// ES modules that import node:child_process by name see the wrapped functions too.
syncBuiltinESMExports();
