import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PROJECT_ROOT, projectPath } from '../../../kernel/project.js';
import type { ArtifactPreparer } from '../domain/registry/model-registry.js';
import { ARTIFACT_KINDS } from '../domain/registry/catalog.js';
import { type ArtifactTexts, type PreparedArtifacts, compileProblem } from '../domain/validation/prepare-artifacts.js';

export interface PrepareRequest {
  id: number;
  texts: ArtifactTexts;
  rootClass?: string;
}

export interface PrepareAnswer {
  id: number;
  prepared: PreparedArtifacts;
}

export interface PreparerOptions {
  /**
   * A thread with versions to prepare that has answered none for this long is hung (a loop that
   * never ends): it is stopped, its versions fail, and the next version starts another.
   */
  hungAfterMs: number;
  /** Told what becomes of the threads, for the log. */
  observer?: PreparerObserver;
  /** The thread's module; the default is `prepare-worker.js` (tests give one that misbehaves). */
  script?: URL;
}

export interface PreparerObserver {
  started(threadId: number): void;
  /** A thread crashed, ran out of memory or hung; the versions it was preparing failed. */
  failed(threadId: number, reason: string): void;
}

interface Job {
  texts: ArtifactTexts;
  resolve(prepared: PreparedArtifacts): void;
}

interface RunningWorker {
  thread: Worker;
  /** The thread's id (the Worker's own reads -1 once it has exited). */
  threadId: number;
  jobs: Map<number, Job>;
  /** Ends the thread when it has answered nothing for `hungAfterMs` while it has jobs. */
  watchdog?: NodeJS.Timeout;
  /** Stopped by this preparer: what the thread does from then on is not a failure. */
  stopped: boolean;
}

/**
 * Prepares artifacts (`prepareArtifacts`: Turtle parsing, ajv's compilation) in a worker thread
 * (`prepare-worker.ts`), so that a refresh leaves the event loop free. The thread is kept between
 * refreshes (idle, it keeps no event loop alive): starting one loads its modules, 0.5 to 0.9 s that
 * every replica following another's refresh paid again. A thread that crashes, runs out of memory
 * or hangs fails only the versions it was preparing; the next version starts another thread.
 */
export class WorkerArtifactPreparer implements ArtifactPreparer {
  private running: RunningWorker | undefined;
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: PreparerOptions) {}

  prepare(texts: ArtifactTexts, rootClass?: string): Promise<PreparedArtifacts> {
    if (this.closed) return Promise.resolve(failedPreparation(texts, 'the artifact worker stopped'));
    const running = (this.running ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (running.jobs.size === 0) {
        running.thread.ref();
        this.watch(running);
      }
      running.jobs.set(id, { texts, resolve });
      running.thread.postMessage({ id, texts, rootClass } satisfies PrepareRequest);
    });
  }

  /** Stops the thread now (process shutdown); the versions it was preparing fail. */
  async close(): Promise<void> {
    this.closed = true;
    const running = this.running;
    if (!running) return;
    this.fail(running, 'the artifact worker stopped');
    await running.thread.terminate();
  }

  private start(): RunningWorker {
    const thread = new Worker(this.options.script ?? WORKER_SCRIPT, { resourceLimits: { maxOldGenerationSizeMb: MAX_OLD_GENERATION_MB } });
    const running: RunningWorker = { thread, threadId: thread.threadId, jobs: new Map(), stopped: false };
    running.thread.on('online', () => this.options.observer?.started(running.threadId));
    running.thread.on('message', ({ id, prepared }: PrepareAnswer) => {
      running.jobs.get(id)?.resolve(prepared);
      running.jobs.delete(id);
      if (running.jobs.size > 0) return this.watch(running);
      clearTimeout(running.watchdog);
      running.thread.unref();
    });
    running.thread.on('error', (error) => this.crashed(running, `the artifact worker failed: ${error.message}`));
    running.thread.on('exit', () => this.crashed(running, 'the artifact worker stopped'));
    return running;
  }

  /** (Re)starts the hang watch: the thread has `hungAfterMs` to answer its next job. */
  private watch(running: RunningWorker): void {
    clearTimeout(running.watchdog);
    const seconds = Math.round(this.options.hungAfterMs / 1000);
    running.watchdog = setTimeout(() => this.crashed(running, `the artifact worker answered nothing for ${seconds} s and was stopped`), this.options.hungAfterMs);
    running.watchdog.unref();
  }

  private crashed(running: RunningWorker, reason: string): void {
    if (running.stopped) return;
    this.options.observer?.failed(running.threadId, reason);
    this.fail(running, reason);
    void running.thread.terminate();
  }

  /** The thread's versions fail with `reason`; the thread is no longer used. */
  private fail(running: RunningWorker, reason: string): void {
    running.stopped = true;
    clearTimeout(running.watchdog);
    if (this.running === running) this.running = undefined;
    for (const { texts, resolve } of running.jobs.values()) resolve(failedPreparation(texts, reason));
    running.jobs.clear();
  }
}

/**
 * The thread's heap: the published 0.0.4 (2.1 MB ontology, 1.2 MB of SHACL) prepares within 32 MB;
 * a 15 MB Turtle file of 700,000 short triples (under REGISTRY_ARTIFACT_MAX_BYTES) needs more than
 * 256 and fails alone, out of memory, the process at 265 MB of RSS, where unbounded it took the
 * process to 990 MB.
 */
const MAX_OLD_GENERATION_MB = 256;

function failedPreparation(texts: ArtifactTexts, reason: string): PreparedArtifacts {
  return { problems: ARTIFACT_KINDS.filter((kind) => texts[kind] !== undefined).map((kind) => compileProblem(kind, reason)) };
}

/**
 * The worker runs built JavaScript: the script beside this module, or, when this module runs from
 * its TypeScript source (ts-jest), its build under dist/ (the tests build first).
 */
const WORKER_SCRIPT = ((): URL => {
  const script = new URL('./prepare-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return script;
  return pathToFileURL(projectPath('dist', path.relative(PROJECT_ROOT, fileURLToPath(script))));
})();
