import type { ArtifactState, RefreshCoordinator, RefreshReport, RegistryMember, RegistrySnapshot } from '../subgraphs/models/domain/registry/model-registry.js';
import type { RefreshAsk } from '../subgraphs/models/domain/registry/refresh-ask.js';
import { type PrimaryMessage, type RegistryJob, type WorkerMessage, fromWire, toWire } from './registry-conductor.js';

/**
 * A worker's refresh coordinator: its registry's asks go to the primary (server/registry-conductor.ts),
 * which answers once every worker serves the run; the primary's jobs (gather, install, announce,
 * check the catalog) are done by this worker's registry.
 */
export class WorkerRefresh implements RefreshCoordinator {
  private member?: RegistryMember;
  private readonly asks = new Map<number, { resolve(report: RefreshReport): void; reject(error: Error): void }>();
  private nextId = 0;

  constructor() {
    process.on('message', (message: PrimaryMessage) => {
      if (message?.cerise === 'registry-answer') this.answered(message);
      if (message?.cerise === 'registry-do') void this.perform(message.id, message.job);
    });
  }

  attach(member: RegistryMember): void {
    this.member = member;
  }

  ask(ask: RefreshAsk): Promise<RefreshReport> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.asks.set(id, { resolve, reject });
      process.send!({ cerise: 'registry-ask', id, ask } satisfies WorkerMessage);
    });
  }

  private answered(message: Extract<PrimaryMessage, { cerise: 'registry-answer' }>): void {
    const ask = this.asks.get(message.id);
    if (!ask) return;
    this.asks.delete(message.id);
    if (message.error) ask.reject(fromWire(message.error));
    else ask.resolve(message.report!);
  }

  private async perform(id: number, job: RegistryJob): Promise<void> {
    let reply: WorkerMessage;
    try {
      reply = { cerise: 'registry-done', id, result: await this.run(job) };
    } catch (error) {
      reply = { cerise: 'registry-done', id, error: toWire(error) };
    }
    if (process.connected) process.send!(reply);
  }

  private run(job: RegistryJob): Promise<unknown> {
    const member = this.member!;
    switch (job.kind) {
      case 'gather':
        return member.gather();
      case 'install':
        return member.install(revived(job.snapshot), job.decided);
      case 'announce':
        return Promise.resolve(member.announce());
      case 'check-catalog':
        return member.checkCatalog();
    }
  }
}

/** The IPC channel's structured clone delivers a Buffer as a plain Uint8Array: artifact bodies are Buffers again. */
function revived(snapshot: RegistrySnapshot): RegistrySnapshot {
  const versions = snapshot.versions.map((version) => ({
    ...version,
    artifacts: Object.fromEntries(Object.entries(version.artifacts).map(([kind, state]) => [kind, bufferBody(state)])) as typeof version.artifacts,
  }));
  return { ...snapshot, versions };
}

function bufferBody(state: ArtifactState): ArtifactState {
  if (state.state !== 'loaded' || Buffer.isBuffer(state.body)) return state;
  const bytes = state.body as Uint8Array;
  return { ...state, body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}
