import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { OperationLabels } from './operation-labels.js';

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The records store's connection pool, read at each scrape (PostgreSQL; SQLite has none). */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * The process's Prometheus metrics (DECISIONS section 3, "/admin/metrics"). Labels carry route
 * patterns, statuses and outcomes only: never a path parameter, token or identity. With workers,
 * a scrape shows all of them, as the primary aggregates them (server/workers.ts): counters and
 * histograms add up; each gauge says how it aggregates.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  /** Operation names are the clients' own: which become label values (operation-labels.ts). */
  private readonly operationLabels: OperationLabels;

  /** `knownOperations`: the names of the operations the deployment knows, each always its own label. */
  constructor(knownOperations: Iterable<string> = []) {
    // Node's own: event-loop lag, GC, heap, handles, CPU, memory (prom-client's default metrics).
    collectDefaultMetrics({ register: this.registry });
    this.operationLabels = new OperationLabels(knownOperations);
  }

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
    aggregator: 'max',
  });

  private readonly lastRefresh = new Gauge({
    name: 'registry_last_refresh_timestamp_seconds',
    help: 'When the registry index in use was refreshed (Unix time)',
    registers: [this.registry],
    aggregator: 'max',
  });

  private readonly revision = new Gauge({
    name: 'registry_revision_info',
    help: 'The catalog revision served (its label); 1 for the revision in use',
    labelNames: ['revision'],
    registers: [this.registry],
    aggregator: 'max',
  });

  private readonly usageCapped = new Counter({
    name: 'usage_capped_requests_total',
    help: 'Requests usage reporting counted under `other` because a daily cap (operations, clients, rows) was reached',
    labelNames: ['cap'],
    registers: [this.registry],
  });

  private readonly poolAcquire = new Histogram({
    name: 'store_pool_acquire_seconds',
    help: 'How long a records store operation waited for a database connection (PostgreSQL)',
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  request(facade: string, route: string | null, method: string, status: number, seconds: number): void {
    this.requests.observe({ facade, route: route ?? 'unmatched', method, status: String(status) }, seconds);
  }

  /** `outcome`: `ok`, or `error` when the answer carried an error. */
  operation(name: string | null, outcome: 'ok' | 'error', seconds: number): void {
    this.operations.observe({ operation: this.operationLabels.labelOf(name), outcome }, seconds);
  }

  validation(kind: string, passed: boolean): void {
    this.validations.inc({ kind, outcome: passed ? 'passed' : 'failed' });
  }

  replay(): void {
    this.replays.inc();
  }

  /** The registry serves a new index: its size, revision and refresh time. */
  registryRefreshed(models: number, revision: string | null, refreshedAt: string): void {
    this.models.set(models);
    this.revision.reset();
    if (revision !== null) this.revision.set({ revision }, 1);
    if (refreshedAt) this.lastRefresh.set(Date.parse(refreshedAt) / 1000);
  }

  /** Requests usage reporting wrote under `other` because the day's `cap` was reached. */
  usageCappedRequests(cap: string, requests: number): void {
    this.usageCapped.inc({ cap }, requests);
  }

  poolAcquired(seconds: number): void {
    this.poolAcquire.observe(seconds);
  }

  /** The pool's connections in use and idle, and the operations waiting for one, read at each scrape. */
  watchPool(stats: () => PoolStats): void {
    new Gauge({
      name: 'store_pool_connections',
      help: 'Records store database connections by state (PostgreSQL)',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const { total, idle } = stats();
        this.set({ state: 'in_use' }, total - idle);
        this.set({ state: 'idle' }, idle);
      },
    });
    new Gauge({
      name: 'store_pool_waiting',
      help: 'Records store operations waiting for a database connection (PostgreSQL)',
      registers: [this.registry],
      collect() {
        this.set(stats().waiting);
      },
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
