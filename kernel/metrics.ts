import { Counter, Gauge, Histogram, Registry } from 'prom-client';

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const MAX_OPERATION_NAMES = 500;

/**
 * The process's Prometheus metrics (DECISIONS section 3, "/admin/metrics"). Labels carry route
 * patterns, statuses and outcomes only: never a path parameter, token or identity.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  private readonly requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Requests by facade (`graphql` for /graphql), route pattern, method and status',
    labelNames: ['facade', 'route', 'method', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly operations = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'GraphQL operations (a REST route runs one too) by operation name and outcome',
    labelNames: ['operation', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  /** Operation names are the clients' own: only so many become label values (`other` beyond). */
  private readonly operationNames = new Set<string>();

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

  /** `outcome`: `ok`, or `error` when the answer carried an error. */
  operation(name: string | null, outcome: 'ok' | 'error', seconds: number): void {
    this.operations.observe({ operation: this.operationLabel(name), outcome }, seconds);
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

  private operationLabel(name: string | null): string {
    if (name === null) return 'anonymous';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.operationNames.add(name);
    return name;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
