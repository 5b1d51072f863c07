import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (DECISIONS section 3, "/admin/metrics"). Labels carry route
 * patterns, statuses and outcomes only: never a path parameter, token or identity.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  private readonly requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'REST facade requests by facade, route pattern, method and status',
    labelNames: ['facade', 'route', 'method', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly validations = new Counter({
    name: 'validations_total',
    help: 'Validator runs by validator kind and outcome',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });

  private readonly replays = new Counter({
    name: 'idempotent_replays_total',
    help: 'Create requests answered by replaying the original record',
    registers: [this.registry],
  });

  private readonly models = new Gauge({
    name: 'registry_models',
    help: 'Model versions currently indexed by the registry',
    registers: [this.registry],
  });

  request(facade: string, route: string | null, method: string, status: number, seconds: number): void {
    this.requests.observe({ facade, route: route ?? 'unmatched', method, status: String(status) }, seconds);
  }

  validation(kind: string, passed: boolean): void {
    this.validations.inc({ kind, outcome: passed ? 'passed' : 'failed' });
  }

  replay(): void {
    this.replays.inc();
  }

  registryModels(count: number): void {
    this.models.set(count);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
