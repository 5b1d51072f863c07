import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import type { Logger } from 'pino';
import type { SystemConfig } from './config.js';
import { RegistryConductor } from './registry-conductor.js';
import { startupSummary } from './startup-summary.js';
import { ClusterMetrics } from './cluster-metrics.js';

/**
 * `WORKERS` > 1 (docs/DEPLOYMENT.md): the primary forks that many workers with node:cluster, each
 * running this process's role whole on the same ports. The primary holds the listening sockets and
 * hands each new connection to the next worker in turn; it does no request work. It replaces a
 * worker that dies, and on SIGTERM or SIGINT lets every worker drain, then exits.
 *
 * Ports: a worker asks the primary for each listening socket by address, port and the rank of the
 * listen call, and every worker listens in the same order, so the workers' port-0 listeners (tests)
 * share one port each; a replacement gets the same ones while another worker still holds them.
 */

/**
 * What a worker tells the primary over the IPC channel: `listening` the supergraph version it loaded
 * too (an edge's, for the `started` line), `alive` its resident memory (bytes).
 */
type Report = { cerise: 'listening'; ports: Record<string, number>; supergraphVersion?: string } | { cerise: 'others-drained' } | { cerise: 'alive'; rss: number };
const DRAIN_CORE = { cerise: 'drain-core' };
/** What the primary tells a worker it replaces past WORKER_MAX_RSS_MB: drain, its requests in flight given `graceMs`. */
type Replace = { cerise: 'replace'; graceMs: number };

const RESTART_BASE_MS = 100;
const RESTART_MAX_MS = 10_000;
const RESTART_WINDOW_MS = 60_000;
/** How often a listening worker says it is alive; a worker whose event loop is stuck says nothing. */
const HEARTBEAT_EVERY_MS = 1000;
/** Past SHUTDOWN_DRAIN_DELAY_MS and SHUTDOWN_GRACE_MS, what a worker may still take to close its store and exit. */
const STOP_MARGIN_MS = 5000;

/** The primary: forks the workers and supervises them until they have all stopped. */
export function superviseWorkers(config: SystemConfig, logger: Logger): void {
  new Supervisor(config, logger).start();
}

class Supervisor {
  private readonly live = new Map<number, Worker>();
  private readonly listening = new Set<number>();
  private readonly othersDrained = new Set<number>();
  private readonly restarts = new Set<NodeJS.Timeout>();
  /** When each listening worker last said it is alive. */
  private readonly heard = new Map<number, number>();
  /**
   * Workers on their way out that the watchdog chose (killed stuck, or draining past
   * WORKER_MAX_RSS_MB): they no longer count as serving; a draining one's replacement is forked
   * already, and it is killed if it does not stop in time.
   */
  private readonly leaving = new Map<number, { replaced: boolean; deadline?: NodeJS.Timeout }>();
  /** Past WORKER_MAX_RSS_MB, waiting for its replacement to listen before it drains. */
  private readonly outgrown = new Map<number, Worker>();
  private watch?: NodeJS.Timeout;
  private readonly deaths: number[] = [];
  private started = false;
  private stopping = false;
  private clean = true;
  /** The registry's refresh runs, one for all workers (server/registry-conductor.ts); none without a models subgraph. */
  private readonly registry?: RegistryConductor;
  /** METRICS_ENABLED: one scrape shows every worker (server/cluster-metrics.ts). */
  private readonly metrics?: ClusterMetrics;

  constructor(
    private readonly config: SystemConfig,
    private readonly logger: Logger,
  ) {
    const models = config.models;
    if (models) {
      const { catalog, catalogPollSecs, minRefreshIntervalSecs } = models.registry;
      const pollMs = catalog.kind === 'url' ? catalogPollSecs * 1000 : 0;
      this.registry = new RegistryConductor({ spacingMs: minRefreshIntervalSecs * 1000, pollMs });
    }
    if (config.metricsEnabled) this.metrics = new ClusterMetrics();
  }

  start(): void {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => this.stop(signal));
    cluster.on('exit', (worker, code, signal) => this.exited(worker, code, signal));
    // A worker per CPU leaves V8's collector threads no CPU of their own: a young collection
    // spread over helper threads takes CPU from the other workers and waits for helpers that wait
    // for a CPU. Young collections on each worker's own thread measured faster and with a shorter
    // tail (bench/PROFILE.md, "Workers"); marking stays concurrent.
    const execArgv = this.config.workers >= os.availableParallelism() ? [...process.execArgv, '--no-parallel-scavenge'] : process.execArgv;
    // Structured clone: a refresh's artifacts cross to every worker as bytes, not as JSON arrays of numbers.
    cluster.setupPrimary({ execArgv, serialization: 'advanced' });
    for (let n = 0; n < this.config.workers; n++) this.fork();
  }

  private fork(): void {
    const worker = cluster.fork();
    this.live.set(worker.id, worker);
    this.registry?.adopt(worker);
    this.metrics?.adopt(worker);
    this.metrics?.workers(this.live.size);
    worker.on('message', (message: Report) => {
      if (message?.cerise === 'alive') this.alive(worker, message.rss);
      if (message?.cerise === 'listening') this.listened(worker, message.ports, message.supergraphVersion);
      if (message?.cerise === 'others-drained') {
        this.othersDrained.add(worker.id);
        // A worker drained alone (past WORKER_MAX_RSS_MB): the others serve the core meanwhile.
        if (this.leaving.has(worker.id) && !this.stopping) worker.send(DRAIN_CORE, () => undefined);
        else this.releaseCore();
      }
    });
  }

  private alive(worker: Worker, rss: number): void {
    this.heard.set(worker.id, Date.now());
    const limit = this.config.workerMaxRssBytes;
    if (limit > 0 && rss > limit && this.mayReplace(worker)) this.outgrow(worker, rss);
  }

  /** `started` (the line tests and operators wait for) once every first worker listens. */
  private listened(worker: Worker, ports: Record<string, number>, supergraphVersion: string | undefined): void {
    this.listening.add(worker.id);
    this.heard.set(worker.id, Date.now());
    this.watch ??= setInterval(() => this.killUnresponsive(), HEARTBEAT_EVERY_MS);
    if (this.started) {
      this.logger.info({ workerPid: worker.process.pid }, 'worker replaced');
      this.drainOutgrown();
    } else if (this.listening.size === this.config.workers) {
      this.started = true;
      const pids = [...this.live.values()].map((w) => w.process.pid);
      this.logger.info({ ports, ...startupSummary(this.config, supergraphVersion), workerPids: pids }, 'started');
    }
  }

  private exited(worker: Worker, code: number | null, signal: string | null): void {
    this.live.delete(worker.id);
    this.metrics?.workers(this.live.size);
    this.registry?.release(worker);
    this.heard.delete(worker.id);
    this.listening.delete(worker.id);
    this.othersDrained.delete(worker.id);
    this.outgrown.delete(worker.id);
    const leaving = this.leaving.get(worker.id);
    this.leaving.delete(worker.id);
    clearTimeout(leaving?.deadline);
    const workerPid = worker.process.pid;
    if (this.stopping) {
      this.clean &&= code === 0;
      this.releaseCore();
      return this.exitOnceAllStopped();
    }
    if (!this.started) {
      // Like a single process that cannot start (its reason is on stderr); the other workers end
      // with the primary (cluster ends a worker whose primary is gone).
      this.logger.error({ workerPid, code, signal }, 'a worker failed to start');
      process.exit(1);
    }
    // Drained past WORKER_MAX_RSS_MB: its replacement already serves, and its line was said.
    if (leaving?.replaced) return;
    const delayMs = this.restartDelay();
    this.logger.error({ workerPid, code, signal, restartInMs: delayMs }, 'worker died; starting another');
    this.forkAfter(delayMs);
  }

  private forkAfter(delayMs: number): void {
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      this.metrics?.restarted();
      this.fork();
    }, delayMs);
    this.restarts.add(timer);
  }

  /**
   * A worker that has not said it is alive for WORKER_HEARTBEAT_TIMEOUT_MS is stuck (a loop that
   * never yields, a deadlock): it is killed, which cuts its connections (their clients see an error,
   * not a hang), and replaced like any worker that dies. One at a time (`mayReplace`): when load
   * stalls every worker at once, the first is replaced and the others are judged again once its
   * replacement listens, so the replica never has none serving (issue 35: both killed at once left
   * nothing answering for 19 s).
   */
  private killUnresponsive(): void {
    if (this.stopping) return;
    const now = Date.now();
    for (const [id, at] of this.heard) {
      const worker = this.live.get(id);
      if (!worker || now - at < this.config.workerHeartbeatTimeoutMs || !this.mayReplace(worker)) continue;
      this.heard.delete(id);
      this.leaving.set(id, { replaced: false });
      this.logger.error({ workerPid: worker.process.pid, silentForMs: now - at }, 'worker stopped answering; killing it');
      worker.process.kill('SIGKILL');
      return;
    }
  }

  /**
   * Whether the watchdog may take `worker` out now: only when every worker of the replica serves
   * (none dead, starting or on its way out), so that it takes one at a time and never the last.
   */
  private mayReplace(worker: Worker): boolean {
    if (this.stopping || !this.started || this.leaving.has(worker.id)) return false;
    const serving = [...this.listening].filter((id) => !this.leaving.has(id));
    return serving.length >= this.config.workers && serving.includes(worker.id);
  }

  /**
   * A worker past WORKER_MAX_RSS_MB (memory no limit counted) is replaced like a stuck one, but
   * gently: its replacement is forked first, and once that listens it drains as a stopping worker
   * does (it takes no new connection, its requests in flight are answered), killed only if it does
   * not stop in time. One log line says so. The fork waits as a restart after a death does, so
   * that a bound set below what a worker needs at rest replaces workers slowly, not in a loop.
   */
  private outgrow(worker: Worker, rss: number): void {
    this.leaving.set(worker.id, { replaced: true });
    this.outgrown.set(worker.id, worker);
    // Rounded up: a worker past the limit (whole MB) never reads as at it (256 past 256).
    const mb = (bytes: number) => Math.ceil(bytes / 2 ** 20);
    const delayMs = this.restartDelay();
    this.logger.error({ workerPid: worker.process.pid, rssMb: mb(rss), limitMb: mb(this.config.workerMaxRssBytes), restartInMs: delayMs }, 'worker past WORKER_MAX_RSS_MB; replacing it');
    this.forkAfter(delayMs);
  }

  /**
   * A replacement listens: the workers it replaces drain now, each within its time to stop. No stop
   * was asked for, so their clients should not notice: a request in flight may still be building
   * its answer for REQUEST_MAX_DURATION_MS, and then writes it within SHUTDOWN_GRACE_MS (a drain's
   * grace alone cut a near-cap answer short on a busy machine).
   */
  private drainOutgrown(): void {
    const graceMs = this.config.requestBudget.maxDurationMs + this.config.http.shutdownGraceMs;
    for (const worker of this.outgrown.values()) {
      this.outgrown.delete(worker.id);
      this.heard.delete(worker.id);
      if (worker.isConnected()) worker.send({ cerise: 'replace', graceMs } satisfies Replace, () => undefined);
      else worker.process.kill('SIGTERM');
      const deadline = setTimeout(() => this.killLate(worker), this.stopTimeMs(graceMs));
      this.leaving.set(worker.id, { replaced: true, deadline });
    }
  }

  private killLate(worker: Worker): void {
    this.logger.error({ workerPid: worker.process.pid }, 'worker did not stop in time; killing it');
    worker.process.kill('SIGKILL');
  }

  /** How long a stopping worker may take: SHUTDOWN_DRAIN_DELAY_MS, its grace (SHUTDOWN_GRACE_MS) and a margin to close its store and exit. */
  private stopTimeMs(graceMs = this.config.http.shutdownGraceMs): number {
    return this.config.http.shutdownDrainDelayMs + graceMs + STOP_MARGIN_MS;
  }

  /** Doubles with each death within a minute: a worker that dies on every start is not forked in a tight loop. */
  private restartDelay(): number {
    const now = Date.now();
    this.deaths.push(now);
    while (this.deaths[0]! < now - RESTART_WINDOW_MS) this.deaths.shift();
    return Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (this.deaths.length - 1));
  }

  /** Every worker drains as a single process would; a repeated signal changes nothing. */
  private stop(signal: NodeJS.Signals): void {
    if (this.stopping) return;
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    clearInterval(this.watch);
    this.registry?.stop();
    this.logger.info({ signal, workers: this.live.size }, 'stopping');
    for (const worker of this.live.values()) worker.process.kill(signal);
    for (const { deadline } of this.leaving.values()) clearTimeout(deadline);
    setTimeout(() => this.killLeftovers(), this.stopTimeMs()).unref();
    this.exitOnceAllStopped();
  }

  /** A stop never waits on a worker that cannot drain (stuck, or its store hangs): past its time it is killed. */
  private killLeftovers(): void {
    for (const worker of this.live.values()) this.killLate(worker);
  }

  /**
   * The core facades stop accepting once every worker has drained its other listeners: a
   * computation in flight validates through the core, and the primary may hand that call to any
   * worker. Sent again when a worker exits; a worker heeds the first.
   */
  private releaseCore(): void {
    if (![...this.live.keys()].every((id) => this.othersDrained.has(id))) return;
    for (const worker of this.live.values()) if (worker.isConnected()) worker.send(DRAIN_CORE, () => undefined);
  }

  private exitOnceAllStopped(): void {
    if (this.live.size > 0) return;
    this.logger.info({ clean: this.clean }, 'stopped');
    process.exit(this.clean ? 0 : 1);
  }
}

/** In a worker: tells the primary it listens, and on which ports; from then on, that it is alive, and its resident memory. */
export function reportListening(ports: Record<string, number>, supergraphVersion: string | undefined): void {
  process.send!({ cerise: 'listening', ports, supergraphVersion } satisfies Report);
  setInterval(() => process.connected && process.send!({ cerise: 'alive', rss: process.memoryUsage.rss() } satisfies Report), HEARTBEAT_EVERY_MS).unref();
}

/** In a worker: `drain` when the primary replaces it (past WORKER_MAX_RSS_MB), with the grace its requests in flight get. */
export function onReplaced(drain: (graceMs: number) => void): void {
  process.on('message', (message: Replace) => {
    if (message?.cerise === 'replace') drain(message.graceMs);
  });
}

/**
 * In a worker, between the drain of its other listeners and its core facade's: resolves once the
 * primary says every worker got there (or at `deadline`, epoch milliseconds).
 */
export function othersDrained(deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve();
    };
    const onMessage = (message: typeof DRAIN_CORE) => {
      if (message?.cerise === DRAIN_CORE.cerise) done();
    };
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    process.on('message', onMessage);
    process.send!({ cerise: 'others-drained' } satisfies Report);
  });
}
