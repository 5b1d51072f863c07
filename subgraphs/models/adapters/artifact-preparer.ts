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

interface Job {
  texts: ArtifactTexts;
  resolve(prepared: PreparedArtifacts): void;
}

interface RunningWorker {
  thread: Worker;
  jobs: Map<number, Job>;
}

/**
 * Prepares artifacts (`prepareArtifacts`: Turtle parsing, ajv's compilation) in a worker thread
 * (`prepare-worker.ts`), so that a refresh leaves the event loop free. The worker starts with the
 * first version to prepare and ends once it has none left: it holds no memory between refreshes.
 * A worker that fails (out of memory on a huge artifact) fails only the versions it was preparing.
 */
export class WorkerArtifactPreparer implements ArtifactPreparer {
  private running: RunningWorker | undefined;
  private nextId = 0;

  prepare(texts: ArtifactTexts, rootClass?: string): Promise<PreparedArtifacts> {
    const running = (this.running ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve) => {
      running.jobs.set(id, { texts, resolve });
      running.thread.postMessage({ id, texts, rootClass } satisfies PrepareRequest);
    });
  }

  /** Stops the worker now (process shutdown); the versions it was preparing fail. */
  async close(): Promise<void> {
    await this.running?.thread.terminate();
  }

  private start(): RunningWorker {
    const running: RunningWorker = { thread: new Worker(WORKER_SCRIPT), jobs: new Map() };
    running.thread.on('message', ({ id, prepared }: PrepareAnswer) => {
      running.jobs.get(id)?.resolve(prepared);
      running.jobs.delete(id);
      if (running.jobs.size === 0) this.retire(running);
    });
    running.thread.on('error', (error) => this.fail(running, `the artifact worker failed: ${error.message}`));
    running.thread.on('exit', () => this.fail(running, 'the artifact worker stopped'));
    return running;
  }

  private retire(running: RunningWorker): void {
    if (this.running === running) this.running = undefined;
    void running.thread.terminate();
  }

  private fail(running: RunningWorker, reason: string): void {
    for (const { texts, resolve } of running.jobs.values()) {
      resolve({ problems: ARTIFACT_KINDS.filter((kind) => texts[kind] !== undefined).map((kind) => compileProblem(kind, reason)) });
    }
    running.jobs.clear();
    this.retire(running);
  }
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
