import { Counter, Gauge, Histogram, type Metric, Registry, collectDefaultMetrics } from 'prom-client';
import { DomainError } from './errors.js';
import { OperationLabels } from './operation-labels.js';

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The records store's connection pool, read at each scrape (PostgreSQL; SQLite has none). */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** How a remote subgraph fetch ended: answered (with or without errors), or which way it failed. */
export type FetchOutcome = 'ok' | 'errors' | 'timeout' | 'unavailable' | 'invalid_answer' | 'failed';

/**
 * What the process does, so that its scrape has those metrics and no others: a gateway that holds
 * no registry reports none (not `registry_models 0`), a subgraph port no operations.
 */
export interface MetricsScope {
  /** The process role as the `started` line names it (`all`, `gateway`, `subgraph:models`, …): `process_role_info`. */
  role: string;
  /** The edge runs here (REST facades, /graphql): the operations' names the deployment knows, each always its own label. */
  edge?: { knownOperations: Iterable<string> };
  /** The models subgraph runs here: validations, replays, the registry and the records store's pool. */
  models: boolean;
  /** Some of its subgraphs are remote (the gateway role; `all` following the schema registry): the fetches to them. */
  remoteSubgraphs: boolean;
}

/** The 404 of `/admin/metrics` on every port that serves it. */
export function metricsDisabled(): DomainError {
  return new DomainError('NOT_FOUND', 'metrics are disabled (METRICS_ENABLED is not true)');
}

/**
 * The process's Prometheus metrics (DECISIONS section 3, "/admin/metrics"), those of its role
 * (`MetricsScope`). Labels carry route patterns, statuses, outcomes and names from the
 * configuration only: never a path parameter, token or identity. With workers, a scrape shows all
 * of them, as the primary aggregates them (server/workers.ts): counters and histograms add up; each
 * gauge says how it aggregates.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  /** Operation names are the clients' own: which become label values (operation-labels.ts). */
  private readonly operationLabels: OperationLabels;

  constructor(scope: MetricsScope) {
    // Node's own: event-loop lag, GC, heap, handles, CPU, memory (prom-client's default metrics).
    collectDefaultMetrics({ register: this.registry });
    this.operationLabels = new OperationLabels(scope.edge?.knownOperations ?? []);
    this.role.set({ role: scope.role }, 1);
    for (const metric of this.scoped(scope)) this.registry.registerMetric(metric);
  }

  /** The families of what the role does, besides the requests and the runtime every process has. */
  private scoped(scope: MetricsScope): Metric[] {
    return [
      ...(scope.edge ? [this.operations, this.supergraph, this.supergraphLoadFailures, this.usageCapped] : []),
      ...(scope.models ? [this.validations, this.replays, this.models, this.lastRefresh, this.revision, this.poolAcquire] : []),
      ...(scope.remoteSubgraphs ? [this.fetches, this.fetchDurations] : []),
    ];
  }

  private readonly role = new Gauge({
    name: 'process_role_info',
    help: 'The PROCESS_ROLE this process runs (its label: `all`, `gateway`, `subgraph:<name>`); always 1',
    labelNames: ['role'],
    registers: [this.registry],
    aggregator: 'max',
  });

  private readonly requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Requests by facade (`graphql` for /graphql, `subgraph:<name>` for a subgraph port), route pattern, method and status',
    labelNames: ['facade', 'route', 'method', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly operations = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'GraphQL operations (a REST route runs one too) by operation name and outcome',
    labelNames: ['operation', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [],
  });

  private readonly validations = new Counter({
    name: 'validations_total',
    help: 'Validator runs by validator kind and outcome',
    labelNames: ['kind', 'outcome'],
    registers: [],
  });

  private readonly replays = new Counter({
    name: 'idempotent_replays_total',
    help: 'Create requests answered by replaying the original record',
    registers: [],
  });

  private readonly models = new Gauge({
    name: 'registry_models',
    help: 'Model versions currently indexed by the registry',
    registers: [],
    aggregator: 'max',
  });

  private readonly lastRefresh = new Gauge({
    name: 'registry_last_refresh_timestamp_seconds',
    help: 'When the registry index in use was refreshed (Unix time)',
    registers: [],
    aggregator: 'max',
  });

  private readonly revision = new Gauge({
    name: 'registry_revision_info',
    help: 'The catalog revision served (its label); 1 for the revision in use',
    labelNames: ['revision'],
    registers: [],
    aggregator: 'max',
  });

  private readonly usageCapped = new Counter({
    name: 'usage_capped_requests_total',
    help: 'Requests usage reporting counted under `other` because a daily cap (operations, clients, rows) was reached',
    labelNames: ['cap'],
    registers: [],
  });

  private readonly supergraph = new Gauge({
    name: 'supergraph_version_info',
    help: 'The supergraph served (its label: 16 hex digits of the SHA-256 of its SDL); always 1. With workers, one label per version the workers serve (two while they swap)',
    labelNames: ['version'],
    registers: [],
    aggregator: 'max',
  });

  private readonly supergraphLoadFailures = new Counter({
    name: 'supergraph_load_failures_total',
    help: 'Versions of the schema registry this process could not load (SUPERGRAPH_SOURCE=registry): the previous supergraph stayed in service',
    registers: [],
  });

  private readonly fetches = new Counter({
    name: 'subgraph_fetches_total',
    help: 'Fetches to remote subgraphs by subgraph and outcome',
    labelNames: ['subgraph', 'outcome'],
    registers: [],
  });

  private readonly fetchDurations = new Histogram({
    name: 'subgraph_fetch_duration_seconds',
    help: 'How long fetches to remote subgraphs took, by subgraph and outcome',
    labelNames: ['subgraph', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [],
  });

  private readonly poolAcquire = new Histogram({
    name: 'store_pool_acquire_seconds',
    help: 'How long a records store operation waited for a database connection (PostgreSQL)',
    buckets: DURATION_BUCKETS,
    registers: [],
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

  /** The supergraph this edge serves, by its version: the one it served before is no longer shown. */
  serving(supergraphVersion: string): void {
    this.supergraph.reset();
    this.supergraph.set({ version: supergraphVersion }, 1);
  }

  /** A version of the schema registry could not be loaded; the previous supergraph serves on. */
  supergraphLoadFailed(): void {
    this.supergraphLoadFailures.inc();
  }

  /** `subgraph`: a name from the configuration (SUBGRAPH_NAMES), never one a client sent. */
  fetched(subgraph: string, outcome: FetchOutcome, seconds: number): void {
    this.fetches.inc({ subgraph, outcome });
    this.fetchDurations.observe({ subgraph, outcome }, seconds);
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
