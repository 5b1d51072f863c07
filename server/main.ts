import 'reflect-metadata';
import cluster from 'node:cluster';
import { ConfigError } from '../kernel/config/env.js';
import { createLogger } from '../kernel/logger.js';
import { type SystemConfig, readSystemConfig } from './config.js';
import { onReplaced, othersDrained, reportListening, superviseWorkers } from './workers.js';
import { startupSummary, startupWarnings } from './startup-summary.js';
import { applyHeapGrowth } from './heap-growth.js';

/**
 * `npm run serve`: configuration from the environment only, the way a deployment starts it.
 * A bad value fails with one line naming the variable and exit code 1. With WORKERS > 1 this
 * process is the primary of that many workers (server/workers.ts), each of which runs this too.
 */
async function main(): Promise<void> {
  const config = readConfig();
  applyHeapGrowth(config.heapGrowthPercent);
  if (cluster.isPrimary && config.auth.mode === 'none') {
    console.warn('WARNING: AUTH_MODE=none: authentication is disabled and every caller is the local identity. Never run this in production.');
  }
  // Said once, by the process that says `started`, not by each worker.
  if (cluster.isPrimary) startupWarnings(config, createLogger({ level: config.logLevel }));
  if (cluster.isPrimary && config.workers > 1) superviseWorkers(config, createLogger({ level: config.logLevel }));
  else await serve(config);
}

function readConfig(): SystemConfig {
  try {
    return readSystemConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Runs the role in this process: alone, or as one of the primary's workers. The system's modules
 * (every subgraph, the gateway, the stores: 1.7 s of CPU to load) are loaded here, by the process
 * that serves, not by a primary that only supervises its workers.
 */
async function serve(config: SystemConfig): Promise<void> {
  const [{ startSystem }, { WorkerRefresh }, { clusterMetricsOf }] = await Promise.all([import('./system.js'), import('./worker-refresh.js'), import('./cluster-metrics.js')]);
  const worker = cluster.isWorker ? { othersDrained, refreshCoordinator: () => new WorkerRefresh(), clusterMetrics: clusterMetricsOf } : {};
  const starting = startSystem(config, worker).catch((error: Error) => {
    console.error(`startup failed: ${error.message}`);
    process.exit(1);
  });
  // Before the start completes: a signal then (the primary stops its workers whenever it is told
  // to) waits for it and drains, rather than ending the process the default way.
  onStop(async (why, drain) => {
    const system = await starting;
    system.logger.info(why, 'stopping');
    await system.stop(drain);
    process.exit(0);
  });
  const system = await starting;
  if (cluster.isWorker) {
    system.logger.info({ ports: system.ports, worker: cluster.worker!.id }, 'worker listening');
    reportListening(system.ports, system.supergraphVersion);
  } else {
    // Whoever reads this line may signal at once: the handlers are in place.
    system.logger.info({ ports: system.ports, ...startupSummary(config, system.supergraphVersion) }, 'started');
  }
}

/**
 * Every signal, not just the first: a worker gets Ctrl-C's SIGINT from the terminal and again from
 * the primary, and a repeated signal must not cut a drain short. A worker the primary replaces
 * drains the same way, with the grace the primary gives it.
 */
function onStop(stop: (why: object, drain?: { graceMs: number }) => Promise<void>): void {
  let stopping: Promise<void> | undefined;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void (stopping ??= stop({ signal })));
  if (cluster.isWorker) onReplaced((graceMs) => void (stopping ??= stop({ reason: 'replaced past WORKER_MAX_RSS_MB', graceMs }, { graceMs })));
}

await main();
