import type { Worker } from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';

/**
 * With WORKERS, `/admin/metrics` shows the whole process, whichever worker a scrape reaches: the
 * worker asks the primary, which gathers every worker's registry (prom-client's AggregatorRegistry:
 * counters and histograms add up, gauges as each declares) and adds its own (the workers alive, the
 * ones replaced). Without it, a scrape would show one worker's counts, the next another's.
 */
type MetricsAsk = { cerise: 'metrics-ask'; id: number };
type MetricsAnswer = { cerise: 'metrics'; id: number; contentType: string; body: string } | { cerise: 'metrics'; id: number; error: string };

export interface RenderedMetrics {
  contentType: string;
  body: string;
}

/** The primary's side. */
export class ClusterMetrics {
  private readonly aggregator = new AggregatorRegistry();
  private readonly own = new Registry();
  private readonly live = new Gauge({ name: 'workers_live', help: "Worker processes serving this process's ports", registers: [this.own] });
  private readonly replaced = new Counter({ name: 'worker_restarts_total', help: 'Workers started again after one died or stopped answering', registers: [this.own] });

  adopt(worker: Worker): void {
    worker.on('message', (message: MetricsAsk) => {
      if (message?.cerise === 'metrics-ask') void this.answer(worker, message.id);
    });
  }

  workers(count: number): void {
    this.live.set(count);
  }

  restarted(): void {
    this.replaced.inc();
  }

  private async answer(worker: Worker, id: number): Promise<void> {
    let answer: MetricsAnswer;
    try {
      const [workers, own] = await Promise.all([this.aggregator.clusterMetrics(), this.own.metrics()]);
      answer = { cerise: 'metrics', id, contentType: this.aggregator.contentType, body: `${workers}${own}` };
    } catch (error) {
      answer = { cerise: 'metrics', id, error: (error as Error).message };
    }
    if (worker.isConnected()) worker.send(answer, () => undefined);
  }
}

/** A worker's side: its registry answers the primary's gathering; a scrape here asks the primary. */
export function clusterMetricsOf(registry: Registry): () => Promise<RenderedMetrics> {
  AggregatorRegistry.setRegistries([registry]);
  // prom-client answers the primary's gathering in a worker once an AggregatorRegistry was made there.
  new AggregatorRegistry();
  let nextId = 0;
  const waiting = new Map<number, { resolve(metrics: RenderedMetrics): void; reject(error: Error): void }>();
  process.on('message', (message: MetricsAnswer) => {
    if (message?.cerise !== 'metrics') return;
    const ask = waiting.get(message.id);
    waiting.delete(message.id);
    if ('error' in message) ask?.reject(new Error(`the workers' metrics could not be gathered: ${message.error}`));
    else ask?.resolve({ contentType: message.contentType, body: message.body });
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, { resolve, reject });
      process.send!({ cerise: 'metrics-ask', id } satisfies MetricsAsk);
    });
}
