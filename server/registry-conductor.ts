import type { Worker } from 'node:cluster';
import { DomainError } from '../kernel/errors.js';
import { RefreshQueue } from '../subgraphs/models/domain/registry/refresh-queue.js';
import type { Installed, RefreshReport, RegistrySnapshot } from '../subgraphs/models/domain/registry/model-registry.js';
import { type RefreshAsk, announces, followsOnly } from '../subgraphs/models/domain/registry/refresh-ask.js';

/**
 * With WORKERS, a registry refresh is one run for the whole process (DECISIONS, "Registry refresh"):
 * the primary decides when runs happen (RefreshQueue), has one worker gather the catalog and its
 * artifacts, has every worker install that one snapshot, and answers the run's report to every ask
 * that joined it only once they all serve it. A worker that starts later installs what the others
 * serve. The workers' side is server/worker-refresh.ts; this is the IPC between them.
 */

/** What a worker does for a run, when the primary asks. */
export type RegistryJob = { kind: 'gather' } | { kind: 'install'; snapshot: RegistrySnapshot; decided?: RefreshReport } | { kind: 'announce' } | { kind: 'check-catalog' };

/** A DomainError as it crosses the IPC channel. */
export interface WireError {
  code: string;
  message: string;
  details?: unknown;
}

export type WorkerMessage = { cerise: 'registry-ask'; id: number; ask: RefreshAsk } | { cerise: 'registry-done'; id: number; result?: unknown; error?: WireError };

export type PrimaryMessage = { cerise: 'registry-answer'; id: number; report?: RefreshReport; error?: WireError } | { cerise: 'registry-do'; id: number; job: RegistryJob };

export function toWire(error: unknown): WireError {
  if (error instanceof DomainError) return { code: error.code, message: error.message, details: error.details };
  return { code: 'REGISTRY_ERROR', message: (error as Error).message };
}

export function fromWire(error: WireError): DomainError {
  return new DomainError(error.code as DomainError['code'], error.message, error.details);
}

interface Member {
  worker: Worker;
  /** The run whose snapshot this worker serves (0: none yet). */
  run: number;
  jobs: Map<number, { resolve(result: unknown): void; reject(error: Error): void }>;
}

export interface ConductorOptions {
  /** REGISTRY_REFRESH_MIN_INTERVAL_SECS, in milliseconds. */
  spacingMs: number;
  /** REGISTRY_CATALOG_POLL_SECS for a catalog URL, in milliseconds; 0: no polling. */
  pollMs: number;
}

export class RegistryConductor {
  /** Workers with a registry, in the order they joined: the first gathers and polls. */
  private readonly members = new Map<number, Member>();
  private readonly queue: RefreshQueue<RefreshAsk, RefreshReport>;
  private served: { run: number; installed: Installed } | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private firstLoad?: Promise<RefreshReport>;
  private runs = 0;
  private jobs = 0;
  private poll?: NodeJS.Timeout;

  constructor(private readonly options: ConductorOptions) {
    this.queue = new RefreshQueue(
      (asks) => this.startRun(asks),
      options.spacingMs,
      (asks) => this.alreadyServed(asks),
    );
  }

  /** A forked worker: what it says is heard from now on. */
  adopt(worker: Worker): void {
    worker.on('message', (message: WorkerMessage) => {
      if (message?.cerise === 'registry-ask') void this.answer(worker, message.id, message.ask);
      if (message?.cerise === 'registry-done') this.settle(worker, message);
    });
  }

  /** A worker that exited: no run waits for it; what it was doing fails, and another gathers. */
  release(worker: Worker): void {
    const member = this.members.get(worker.id);
    if (!member) return;
    this.members.delete(worker.id);
    for (const job of member.jobs.values()) job.reject(new DomainError('REGISTRY_ERROR', 'the worker refreshing the registry stopped; ask again'));
  }

  stop(): void {
    clearTimeout(this.poll);
  }

  private async answer(worker: Worker, id: number, ask: RefreshAsk): Promise<void> {
    let message: PrimaryMessage;
    try {
      const report = ask.kind === 'load' ? await this.join(worker) : await this.queue.ask(ask);
      message = { cerise: 'registry-answer', id, report };
    } catch (error) {
      message = { cerise: 'registry-answer', id, error: toWire(error) };
    }
    if (worker.isConnected()) worker.send(message, () => undefined);
  }

  /** A worker's start-up load: it serves what the others serve, or the first run brings it. */
  private async join(worker: Worker): Promise<RefreshReport> {
    const member: Member = { worker, run: 0, jobs: new Map() };
    this.members.set(worker.id, member);
    if (this.members.size === 1) this.schedulePoll();
    await this.running.catch(() => undefined);
    // The first load is one run for every worker: one that failed (the catalog unreachable) is
    // every starting worker's answer too, until a refresh succeeds (and installs everywhere).
    if (!this.served) return (this.firstLoad ??= this.queue.ask({ kind: 'load' }));
    if (member.run !== this.served.run) await this.sync(member);
    return this.served.installed.report;
  }

  private startRun(asks: RefreshAsk[]): Promise<RefreshReport> {
    const run = this.run(asks);
    this.running = run;
    return run;
  }

  /**
   * The report of asks that only follow the revision served (the run before them brought it): the
   * queue answers them without a run.
   */
  private alreadyServed(asks: RefreshAsk[]): RefreshReport | undefined {
    const served = this.served?.installed;
    return served && followsOnly(asks, served.revision) ? served.report : undefined;
  }

  /**
   * One worker gathers; every worker installs that snapshot at once; the report is the gatherer's
   * (the first worker's that installed it); workers that joined meanwhile then install what it serves.
   */
  private async run(asks: RefreshAsk[]): Promise<RefreshReport> {
    const gatherer = this.gatherer();
    const snapshot = (await this.job(gatherer, { kind: 'gather' })) as RegistrySnapshot;
    const members = [...this.members.values()];
    const outcomes = await Promise.allSettled(members.map((member) => this.job(member, { kind: 'install', snapshot })));
    const first = outcomes.find((outcome) => outcome.status === 'fulfilled');
    if (!first) throw (outcomes[0] as PromiseRejectedResult).reason;
    const installed = first.value as Installed;
    this.served = { run: ++this.runs, installed };
    members.forEach((member, i) => outcomes[i]!.status === 'fulfilled' && (member.run = this.runs));
    await Promise.all([...this.members.values()].filter((member) => member.run !== this.runs).map((member) => this.sync(member)));
    if (asks.some(announces)) this.job(gatherer, { kind: 'announce' }).catch(() => undefined);
    return installed.report;
  }

  /** A worker that missed runs installs what the others serve, with their report. */
  private async sync(member: Member): Promise<void> {
    const { run, installed } = this.served!;
    await this.job(member, { kind: 'install', snapshot: installed.served, decided: installed.report }).catch(() => undefined);
    member.run = run;
  }

  private gatherer(): Member {
    const first = this.members.values().next();
    if (first.done) throw new DomainError('REGISTRY_ERROR', 'no worker serves the registry');
    return first.value;
  }

  private job(member: Member, job: RegistryJob): Promise<unknown> {
    const id = ++this.jobs;
    return new Promise((resolve, reject) => {
      member.jobs.set(id, { resolve, reject });
      member.worker.send({ cerise: 'registry-do', id, job } satisfies PrimaryMessage, (error: Error | null) => {
        if (error && member.jobs.delete(id)) reject(new DomainError('REGISTRY_ERROR', 'the worker refreshing the registry cannot be reached'));
      });
    });
  }

  private settle(worker: Worker, message: Extract<WorkerMessage, { cerise: 'registry-done' }>): void {
    const member = this.members.get(worker.id);
    const job = member?.jobs.get(message.id);
    if (!job) return;
    member!.jobs.delete(message.id);
    if (message.error) job.reject(fromWire(message.error));
    else job.resolve(message.result);
  }

  /** REGISTRY_CATALOG_POLL_SECS: the gatherer checks, a full interval after its last check ended. */
  private schedulePoll(): void {
    if (this.options.pollMs === 0 || this.poll) return;
    const next = () => {
      this.poll = setTimeout(() => {
        const gatherer = this.members.values().next().value;
        if (!gatherer) return next();
        this.job(gatherer, { kind: 'check-catalog' })
          .catch(() => undefined)
          .finally(next);
      }, this.options.pollMs);
      this.poll.unref();
    };
    next();
  }
}
