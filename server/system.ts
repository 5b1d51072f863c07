import 'reflect-metadata';
import express from 'express';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createAuthenticator } from '../kernel/identity/create-authenticator.js';
import { Authorizer } from '../kernel/identity/authorization.js';
import type { AccessControl } from '../kernel/graphql/request-context.js';
import { createLogger } from '../kernel/logger.js';
import { ServiceMetrics } from '../kernel/metrics.js';
import { PROJECT_VERSION } from '../kernel/project.js';
import { CORE_SERVICE_NAME } from '../kernel/service-identities.js';
import { type Gateway, startGateway } from '../gateway/gateway.js';
import { readCommittedSupergraph, supergraphVersion } from '../gateway/committed-supergraph.js';
import { InProcessClient } from '../gateway/executor/in-process-client.js';
import { AnswerCache } from '../gateway/executor/answer-cache.js';
import { RemoteClient } from '../gateway/executor/remote-client.js';
import type { SubgraphClient } from '../gateway/executor/subgraph-client.js';
import { forwardedCredentials } from '../pipeline/forwarded-credentials.js';
import { gatewaySecret } from '../pipeline/gateway-secret.js';
import { upstreamTimeout } from '../pipeline/upstream-timeout.js';
import { operationLimits } from '../pipeline/operation-limits.js';
import { documentSizeLimits } from '../pipeline/document-size-limits.js';
import { type OwnDeadlines, requestBudgetPlugin } from '../pipeline/request-budget.js';
import { budgetOn } from '../kernel/request-budget.js';
import { AnswerMemory } from '../kernel/answer-memory.js';
import { type GraphQLEndpointOptions, graphqlEndpoint } from '../gateway/graphql-endpoint.js';
import { type Refusal, httpServer } from '../kernel/http/http-server.js';
import { type MessageClasses, expressMessages, expressMessagesFor } from '../kernel/http/express-messages.js';
import { graphqlRefusal } from '../kernel/http/graphql-body.js';
import { RequestPipeline, type RequestPlugin } from '../pipeline/pipeline.js';
import { requestId } from '../pipeline/request-id.js';
import { requestMetrics } from '../pipeline/request-metrics.js';
import { subgraphFetchMetrics } from '../pipeline/subgraph-fetch-metrics.js';
import { serverErrorLog } from '../pipeline/server-error-log.js';
import { accessLog } from '../pipeline/access-log.js';
import { usageReporting } from '../gateway/usage/usage-reporting.js';
import { UsageCollector } from '../gateway/usage/usage-collector.js';
import { usageEndpoint } from '../gateway/usage/usage-endpoint.js';
import { openUsageStore } from '../gateway/usage/sql-usage-store.js';
import { versionsEndpoint } from '../gateway/schema-registry/versions-endpoint.js';
import { registryOnDemand } from '../gateway/schema-registry/open-registry.js';
import type { SupergraphVersions } from '../gateway/schema-registry/supergraph-versions.js';
import type { UsageStore } from '../gateway/usage/usage-store.js';
import { REUSABLE_ROOT_FIELDS, type SubgraphServices, buildSubgraphSchema } from '../subgraphs/index.js';
import { SUBGRAPH_NAMES, type SubgraphName } from '../subgraphs/names.js';
import { ArtifactFetcher } from '../subgraphs/models/adapters/artifact-fetcher.js';
import { catalogSource } from '../subgraphs/models/adapters/catalog-source.js';
import { WorkerArtifactPreparer } from '../subgraphs/models/adapters/artifact-preparer.js';
import { LocalRefresh, ModelRegistry, type RefreshCoordinator, type RefreshReport } from '../subgraphs/models/domain/registry/model-registry.js';
import { AdminService } from '../subgraphs/models/domain/admin/admin-service.js';
import { RecordService } from '../subgraphs/models/domain/records/record-service.js';
import { openDatabase } from '../database/database.js';
import { openRecordStore } from '../subgraphs/models/store/open-store.js';
import { openRegistryNotifier } from '../subgraphs/models/store/registry-notifier.js';
import { createFacade } from '../rest-facade/facade.js';
import { type CompiledRoute, compileRoutes } from '../rest-facade/route-table.js';
import { CORE_OPENAPI_VERSION } from '../rest-facade/core/routes.js';
import { FACADES, type Facade } from '../rest-facade/facades.js';
import { openApiDocument } from '../rest-facade/openapi.js';
import { createIndicatorService } from '../subgraphs/indicators/create-indicator-service.js';
import { indicatorConfig } from './indicators-config.js';
import { impactConfig } from './impact-config.js';
import { coreBaseUrlOf } from './core-url.js';
import { ImpactService } from '../subgraphs/impact/domain/impact-service.js';
import { BrightwayProjectReader } from '../subgraphs/impact/adapters/brightway-project.js';
import type { ProcessRole, SystemConfig } from './config.js';
import { type BuiltEdge, type ServedSupergraph, followRegistry } from './supergraph-following.js';
import { knownOperationNames } from './schema-check/deployed-documents.js';
import type { Registry } from 'prom-client';
import type { RenderedMetrics } from './cluster-metrics.js';
import { subgraphApp } from './subgraph-server.js';
import { drain } from './drain.js';
import { roleName } from './startup-summary.js';
import { stoppingAware } from './stopping.js';

export interface RunningSystem {
  /** Bound ports by listener name (`core`, `gateway`, `subgraph:models`, …); useful with port 0. */
  ports: Record<string, number>;
  logger: Logger;
  /** The domain services this process built (for benchmarks that call the domain directly). */
  services: Partial<SubgraphServices>;
  /** The supergraph's version, where this process serves one (`all`, `gateway`): its `started` line names it. */
  supergraphVersion?: string;
  /** Drains and stops; `graceMs` in place of SHUTDOWN_GRACE_MS (a worker replaced past WORKER_MAX_RSS_MB). */
  stop(drain?: { graceMs: number }): Promise<void>;
}

interface Process {
  config: SystemConfig;
  logger: Logger;
  access: AccessControl;
  metrics: ServiceMetrics;
  /** `/admin/metrics` on every port that serves it; null when METRICS_ENABLED is not true. */
  renderMetrics: (() => Promise<RenderedMetrics>) | null;
  pipeline: RequestPipeline;
  /** Usage reporting, when this process has an edge and it is on. */
  usage: { store: UsageStore; collector: UsageCollector } | null;
  closers: Array<() => Promise<void>>;
  listeners: Record<string, Server>;
  /** Told to stop: the probes answer 503 (server/stopping.ts). */
  stopping: boolean;
  /** The version of the supergraph it serves, once loaded (an edge process). */
  supergraphVersion?: string;
  options: SystemOptions;
}

export interface SystemOptions {
  logger?: Logger;
  /**
   * Awaited on stop between the drain of the other listeners and the core facade's, at most until
   * the deadline (epoch milliseconds): a worker's core serves its siblings too (server/workers.ts).
   */
  othersDrained?: (deadline: number) => Promise<void>;
  /**
   * A worker's: its registry's refresh runs are the primary's, for every worker at once
   * (server/worker-refresh.ts); without it this process refreshes, and polls its catalog, alone.
   */
  refreshCoordinator?: () => RefreshCoordinator;
  /** A worker's: `/admin/metrics` shows every worker's, gathered by the primary (server/cluster-metrics.ts). */
  clusterMetrics?: (registry: Registry) => () => Promise<RenderedMetrics>;
  /** @apollo/gateway's own executor for every operation: the differential tests' reference (gateway.ts, `stockExecutorOnly`); no setting reaches it. */
  stockExecutorOnly?: boolean;
}

/** Starts what the configuration's process role asks for (DECISIONS section 1). */
export async function startSystem(config: SystemConfig, options: SystemOptions = {}): Promise<RunningSystem> {
  // The logger redacts the authenticator's credential headers, and the authenticator logs key set
  // failures through that logger: it is reached lazily, once both exist.
  let logger = options.logger;
  const authenticator = createAuthenticator(config.auth, { logger: { warn: ((obj: object, msg?: string) => logger!.warn(obj, msg)) as Logger['warn'] } });
  logger ??= createLogger({ level: config.logLevel, sensitiveHeaders: authenticator.credentialHeaders });
  const access = { authenticator, authorizer: new Authorizer(config.auth.policy) };
  const metrics = processMetrics(config);
  const renderMetrics = config.metricsEnabled ? (options.clusterMetrics?.(metrics.registry) ?? (() => metrics.render())) : null;
  const usage = await openUsage(config, logger, metrics);
  const pipeline = requestPipeline(config, metrics, logger, usage?.collector);
  const proc: Process = { config, logger, access, metrics, renderMetrics, pipeline, usage, closers: [], listeners: {}, stopping: false, options };
  // Closed last (closers run in reverse): the final batch holds the requests drained before.
  if (usage) proc.closers.push(() => usage.collector.close());
  try {
    await startRole(proc);
  } catch (error) {
    await stopAll(proc);
    throw error;
  }
  const ports = Object.fromEntries(Object.entries(proc.listeners).map(([name, server]) => [name, (server.address() as AddressInfo).port]));
  let stopping: Promise<void> | undefined;
  return { ports, logger, services: built.get(proc) ?? {}, supergraphVersion: proc.supergraphVersion, stop: (drain) => (stopping ??= stopGracefully(proc, options.othersDrained, drain?.graceMs)) };
}

/** The metrics of what this process's role does (kernel/metrics.ts `MetricsScope`). */
function processMetrics(config: SystemConfig): ServiceMetrics {
  const role = config.process.role;
  return new ServiceMetrics({
    role: roleName(config),
    edge: role === 'subgraph' ? undefined : { knownOperations: knownOperationNames(config.graphqlTrustedDocuments?.bodies.values()) },
    models: config.models !== undefined,
    remoteSubgraphs: role === 'gateway' || config.supergraph?.source === 'registry',
  });
}

/**
 * The request concerns of every door of this process, in order (pipeline/): the request id
 * first, so that everything after it can name the request; the subgraph fetch concerns of a gateway
 * over remote subgraphs; the answer's metrics and log line last.
 */
function requestPipeline(config: SystemConfig, metrics: ServiceMetrics, logger: Logger, usage: UsageCollector | undefined): RequestPipeline {
  // Usage counts what runs: after the limits, which refuse an operation before it does.
  const reporting = usage ? [usageReporting(usage)] : [];
  const accessLogs = config.accessLog ? [accessLog(logger)] : [];
  const memory = config.answerMemoryBytes > 0 ? new AnswerMemory(config.answerMemoryBytes) : undefined;
  const budget = budgetOn(config.requestBudget) || memory ? [requestBudgetPlugin(config.requestBudget, ownDeadlines(config), memory)] : [];
  const limits = [documentSizeLimits(config.graphqlLimits), operationLimits(config.graphqlLimits)];
  return new RequestPipeline([requestId(), ...limits, ...reporting, ...remoteFetchConcerns(config, metrics), ...budget, requestMetrics(metrics), serverErrorLog(logger), ...accessLogs]);
}

/**
 * What a fetch to a remote subgraph carries and how long it may take: the gateway role's, and in
 * `all` those of the subgraphs a registry version names that run elsewhere (no gateway secret:
 * `all` has none to give). Fetches to subgraphs in this process do not go through them.
 */
function remoteFetchConcerns(config: SystemConfig, metrics: ServiceMetrics): RequestPlugin[] {
  const role = config.process;
  if (role.role === 'gateway') return [subgraphFetchMetrics(metrics), forwardedCredentials(), gatewaySecret(role.gatewaySecret), upstreamTimeout(role.subgraphTimeoutMs)];
  const supergraph = config.supergraph;
  if (supergraph?.source === 'registry' && supergraph.subgraphTimeoutMs) return [subgraphFetchMetrics(metrics), forwardedCredentials(), upstreamTimeout(supergraph.subgraphTimeoutMs)];
  return [];
}

/**
 * How long past REGISTRY_REFRESH_TIMEOUT_SECS the refresh's request has for its answer: the
 * registry's REGISTRY_ERROR, with its report of what happens next, goes out before the deadline's
 * DEADLINE_EXCEEDED would (with WORKERS it crosses from the primary first).
 */
const REFRESH_ANSWER_MARGIN_MS = 5000;

/** The operations held to a deadline of their own: the admin refresh (`refreshRegistry`), to REGISTRY_REFRESH_TIMEOUT_SECS. */
function ownDeadlines(config: SystemConfig): OwnDeadlines {
  return { refreshRegistry: config.registryRefreshTimeoutMs + REFRESH_ANSWER_MARGIN_MS };
}

/**
 * Usage reporting's store and collector (gateway/usage/). A database that cannot be reached at
 * start costs the usage of this process, not the process: requests are served, one line says so.
 */
async function openUsage(config: SystemConfig, logger: Logger, metrics: ServiceMetrics): Promise<Process['usage']> {
  const settings = config.usage;
  if (!settings?.enabled) return null;
  let store: UsageStore;
  try {
    store = await openUsageStore(settings.databaseUrl, settings.storeLimits, migrationLog(logger));
  } catch (error) {
    logger.error({ reason: (error as Error).message }, 'usage reporting: the database cannot be opened; this process records no usage');
    return null;
  }
  const collector = new UsageCollector(store, settings, {
    writeFailed: (error, batch) =>
      logger.warn({ reason: error.message, ...batch }, 'usage reporting: a batch could not be written and is dropped; later counts wait in memory until the database answers'),
    dropped: (count) => logger.warn({ dropped: count }, 'usage reporting: requests not counted while memory was full and a write ran or the database was down'),
    purgeFailed: (error) => logger.warn({ reason: error.message }, 'usage reporting: usage past the retention period could not be deleted; tried again in an hour'),
    capped: (cap, requests) => metrics.usageCappedRequests(cap, requests),
    capReached: (cap, day, limit) =>
      logger.warn({ cap, day, limit }, 'usage reporting: a daily cap is reached; further ones are counted under `other` until the day ends (usage_capped_requests_total)'),
  });
  return { store, collector };
}

async function startRole(proc: Process): Promise<void> {
  const role = proc.config.process;
  if (role.role === 'subgraph') {
    const schema = await buildSubgraphSchema(role.subgraph, await servicesFor(proc, role.subgraph));
    const { http } = proc.config;
    const app = subgraphApp({
      schema,
      access: proc.access,
      body: { maxBytes: http.maxRequestBytes, maxDepth: http.maxJsonDepth },
      introspection: proc.config.graphqlIntrospection,
      gatewaySecret: role.gatewaySecret,
      door: `subgraph:${role.subgraph}`,
      pipeline: proc.pipeline,
      metrics: proc.renderMetrics,
    });
    await listen(proc, `subgraph:${role.subgraph}`, role.port, app, graphqlRefusal, expressMessages(app));
    return;
  }
  const code = await codeSubgraphClients(proc, role);
  const supergraph = proc.config.supergraph!;
  if (supergraph.source === 'registry') {
    proc.supergraphVersion = await followRegistry({
      settings: supergraph,
      logger: proc.logger,
      metrics: proc.metrics,
      pipeline: proc.pipeline,
      code,
      configuredUrls: role.role === 'gateway' ? role.subgraphUrls : null,
      committedSdl: readCommittedSupergraph,
      build: (served) => buildEdge(proc, served),
      listen: (handlerOf, messages) => listenEdge(proc, handlerOf, messages),
      closers: proc.closers,
    });
    return;
  }
  const supergraphSdl = await readCommittedSupergraph();
  proc.supergraphVersion = supergraphVersion(supergraphSdl);
  proc.metrics.serving(proc.supergraphVersion);
  const edge = await buildEdge(proc, { sdl: supergraphSdl, version: proc.supergraphVersion, registryVersion: null, subgraphs: code });
  proc.closers.push(() => edge.stop());
  await listenEdge(proc, (listener) => edge.handlers[listener]!, edge.messages());
}

/** The code's three subgraphs as an edge reaches them: in this process (`all`), or at their configured URLs (`gateway`). */
async function codeSubgraphClients(proc: Process, role: Exclude<ProcessRole, { role: 'subgraph' }>): Promise<Record<SubgraphName, SubgraphClient>> {
  const clients: Partial<Record<SubgraphName, SubgraphClient>> = {};
  for (const name of SUBGRAPH_NAMES) {
    clients[name] =
      role.role === 'all'
        ? reusing(proc, name, new InProcessClient(await buildSubgraphSchema(name, await servicesFor(proc, name))))
        : new RemoteClient({ name, url: role.subgraphUrls[name] }, proc.pipeline);
  }
  return clients as Record<SubgraphName, SubgraphClient>;
}

/**
 * A subgraph in this process with its reusable answers cached. Only here: how long an answer stays
 * right is the freshness of the calculation artifacts (INDICATORS_ARTIFACT_FRESHNESS_SECS), which
 * this process's own artifact source keeps; a gateway in front of remote subgraphs cannot know it.
 */
function reusing(proc: Process, name: SubgraphName, client: SubgraphClient): SubgraphClient {
  const rootFields = REUSABLE_ROOT_FIELDS[name];
  const freshnessSecs = proc.config.indicators?.artifactFreshnessSecs ?? 0;
  if (!rootFields || proc.config.answerCacheBytes === 0 || freshnessSecs === 0) return client;
  return new AnswerCache(client, { rootFields, ttlMs: freshnessSecs * 1000 }, proc.config.answerCacheBytes);
}

/**
 * The edge of a supergraph: a gateway over it, its GraphQL endpoint (with the port's admin paths)
 * and every REST facade, whose routes' operations are validated against its API schema here. Any
 * of them that cannot be built fails the whole, the reason naming what (a route: its facade, method
 * and path), and leaves nothing running.
 */
async function buildEdge(proc: Process, supergraph: ServedSupergraph): Promise<BuiltEdge> {
  const gateway = await startGateway(supergraph.sdl, supergraph.subgraphs, {
    planner: proc.config.gatewayPlanner?.mode ?? 'apollo',
    stockExecutorOnly: proc.options.stockExecutorOnly,
    logger: proc.logger,
  });
  try {
    const facades = FACADES.map((facade) => [facade.name, facadeListener(proc, facade, gateway, supergraph)] as const);
    const endpoint = await graphqlEndpoint(endpointOptions(proc, gateway, supergraph.sdl));
    let messages: MessageClasses | undefined;
    return {
      handlers: { gateway: endpoint.app, ...Object.fromEntries(facades) },
      messages: () => (messages ??= expressMessages(endpoint.app)),
      adopt: (taken) => expressMessagesFor(endpoint.app, taken),
      stop: async () => {
        await endpoint.server.stop();
        await gateway.stop();
      },
    };
  } catch (error) {
    await gateway.stop();
    throw error;
  }
}

function endpointOptions(proc: Process, gateway: Gateway, supergraphSdl: string): GraphQLEndpointOptions {
  const { http } = proc.config;
  return {
    gateway,
    supergraphSdl,
    access: proc.access,
    introspection: proc.config.graphqlIntrospection,
    ide: proc.config.graphqlIde,
    body: { maxBytes: http.maxRequestBytes, maxDepth: http.maxJsonDepth },
    trustedDocuments: proc.config.graphqlTrustedDocuments,
    pipeline: proc.pipeline,
    admin: express.Router().use(
      usageEndpoint({
        access: proc.access,
        schema: gateway.schema,
        supergraphSdl,
        usage: proc.usage,
        pipeline: proc.pipeline,
      }),
      versionsEndpoint({ access: proc.access, pipeline: proc.pipeline, versions: registryVersions(proc) }),
    ),
  };
}

/** A REST facade over the gateway, its routes compiled against the gateway's API schema. */
function facadeListener(proc: Process, facade: Facade, gateway: Gateway, supergraph: ServedSupergraph): RequestListener {
  const { http } = proc.config;
  const { renderMetrics } = proc;
  // Derived from the routes once, when first asked for (rest-facade/openapi.ts).
  let document: unknown;
  const routes = facade.routes({
    openapi: () => (document ??= openApiDocument(facade, routes, PROJECT_VERSION)),
    metrics: async () => (renderMetrics ? renderMetrics() : null),
    maxJsonDepth: http.maxJsonDepth,
    edge: { authMode: proc.access.authenticator.mode, metricsEnabled: renderMetrics !== null, supergraph: { version: supergraph.version, registryVersion: supergraph.registryVersion } },
  });
  let compiled: CompiledRoute[];
  try {
    compiled = compileRoutes(routes, gateway.schema);
  } catch (error) {
    throw new Error(`the ${facade.name} facade's ${(error as Error).message}`);
  }
  return createFacade({ facade, routes: compiled, gateway, access: proc.access, limits: { maxBytes: http.maxRequestBytes, maxDepth: http.maxJsonDepth }, pipeline: proc.pipeline });
}

/** The gateway's GraphQL port and each REST facade's, in that order (a worker's listeners are matched by rank, server/workers.ts). */
async function listenEdge(proc: Process, handlerOf: (listener: string) => RequestListener, messages: MessageClasses): Promise<void> {
  const { ports } = proc.config.http;
  await listen(proc, 'gateway', ports.gateway, handlerOf('gateway'), graphqlRefusal, messages);
  for (const facade of FACADES) await listen(proc, facade.name, ports[facade.name], handlerOf(facade.name), facade.errors);
}

/**
 * The schema registry's versions for the admin paths, on the records database DATABASE_URL names,
 * opened at their first request; none where this process opens no records database (a gateway
 * with USAGE_REPORTING=false that does not follow the registry), so that no database is made up for it.
 */
function registryVersions(proc: Process): (() => Promise<SupergraphVersions>) | null {
  // Once per process: a process following the registry builds an edge (and asks here) per version.
  if (registries.has(proc)) return registries.get(proc)!;
  const { usage, models, supergraph } = proc.config;
  let versions: (() => Promise<SupergraphVersions>) | null = null;
  if (usage && (usage.enabled || models || supergraph?.source === 'registry')) {
    const registry = registryOnDemand(usage.databaseUrl, usage.storeLimits);
    proc.closers.push(() => registry.close());
    versions = registry.versions;
  }
  registries.set(proc, versions);
  return versions;
}

const registries = new WeakMap<Process, (() => Promise<SupergraphVersions>) | null>();

const built = new WeakMap<Process, Partial<SubgraphServices>>();

/** The domain services a subgraph needs, built once per process. */
async function servicesFor<N extends SubgraphName>(proc: Process, name: N): Promise<SubgraphServices[N]> {
  const cache = built.get(proc) ?? {};
  built.set(proc, cache);
  cache[name] ??= (await SERVICE_FACTORIES[name](proc)) as SubgraphServices[N];
  return cache[name] as SubgraphServices[N];
}

const SERVICE_FACTORIES: { [N in SubgraphName]: (proc: Process) => Promise<SubgraphServices[N]> } = {
  models: modelsServices,
  indicators: async (proc) => createIndicatorService(indicatorConfig(proc.config.indicators!, proc.config.http, coreBaseUrl(proc), (listener) => boundPort(proc, listener))),
  impact: async (proc) => new ImpactService(impactConfig(proc.config.impact!, coreBaseUrl(proc)), new BrightwayProjectReader(proc.config.impact!.backgroundProjectDir)),
};

/** The default core URL is this process's core facade, whose port is known once it listens. */
function coreBaseUrl(proc: Process): () => string {
  return coreBaseUrlOf(proc.config.coreBaseUrl, proc.config.http, (listener) => boundPort(proc, listener));
}

async function modelsServices(proc: Process): Promise<SubgraphServices['models']> {
  const models = proc.config.models!;
  const database = await openDatabase(models.databaseUrl, {
    limits: models.storeLimits,
    pool: { acquired: (seconds) => proc.metrics.poolAcquired(seconds), watch: (stats) => proc.metrics.watchPool(stats) },
  });
  const store = await openRecordStore(database, { idempotencyTtlSecs: models.idempotencyTtlSecs, onMigrationApplied: migrationLog(proc.logger) });
  proc.closers.push(() => store.close());
  const fetcher = new ArtifactFetcher(models.registry.fetch);
  const preparer = new WorkerArtifactPreparer({
    // A version that takes the whole refresh's time without an answer is not coming.
    hungAfterMs: proc.config.registryRefreshTimeoutMs,
    observer: {
      started: (threadId) => proc.logger.info({ threadId }, 'registry: artifact preparation thread started'),
      failed: (threadId, reason) => proc.logger.error({ threadId, reason }, 'registry: artifact preparation thread failed; its versions keep their previous build, the next refresh starts another'),
    },
  });
  proc.closers.push(() => preparer.close());
  const notifier = openRegistryNotifier(database, proc.logger);
  if (notifier) proc.closers.push(() => notifier.close());
  const sources = { catalog: catalogSource(models.registry.catalog, fetcher), artifacts: fetcher, preparer, notifier };
  const coordinator = proc.options.refreshCoordinator?.();
  const registry = new ModelRegistry(
    sources,
    {
      refreshed: (report, revision) => {
        proc.metrics.registryRefreshed(report.models_found, revision, report.refreshed_at);
        logProblems(proc.logger, report);
      },
      validated: (report) => report.results.forEach((r) => proc.metrics.validation(r.kind, r.passed)),
      backgroundRefreshFailed: (error) => proc.logger.warn({ reason: error.message }, 'registry: a refresh no caller asked for failed; the loaded models stay in use'),
      compiled: compileProgress(proc.logger),
    },
    coordinator ?? new LocalRefresh(models.registry.minRefreshIntervalSecs * 1000),
    proc.config.registryRefreshTimeoutMs,
  );
  await initialLoad(proc, registry);
  if (!coordinator) pollCatalog(proc, registry);
  const admin = new AdminService(
    registry,
    store,
    { service: CORE_SERVICE_NAME, serviceVersion: PROJECT_VERSION, openapiVersion: CORE_OPENAPI_VERSION },
    { authMode: proc.access.authenticator.mode, metricsEnabled: proc.config.metricsEnabled },
  );
  const records = new RecordService(registry, store, { replayed: () => proc.metrics.replay() });
  return { registry, admin, records };
}

/**
 * A catalog that cannot be loaded at start-up leaves the registry empty and the service not ready
 * (503 on /admin/ready) instead of stopping the process: a refresh recovers without a restart. One
 * whose every artifact failed (a setting keeps them all out) is said as loudly: versions are listed
 * but nothing validates, and readiness says so too.
 */
async function initialLoad(proc: Process, registry: ModelRegistry): Promise<void> {
  const started = performance.now();
  try {
    const report = await registry.load();
    proc.logger.info({ models: report.models_found, errors: report.errors.length, ms: Math.round(performance.now() - started) }, 'registry loaded');
    if (registry.status().nothingLoaded) {
      const reasons = [...new Set(report.errors.map((error) => error.message))].slice(0, 3);
      proc.logger.error({ reasons }, 'registry: no artifact of any model version could be loaded; nothing can be validated until a setting or the hosts are fixed');
    }
  } catch (error) {
    proc.logger.error({ reason: (error as Error).message }, 'registry: catalog could not be loaded; not ready until a refresh succeeds');
  }
}

/** Each migration of the records database, as it is applied (whichever opens the database first applies it). */
function migrationLog(logger: Logger): (migration: string, ms: number) => void {
  return (migration, ms) => logger.info({ migration, ms }, 'records store: migration applied');
}

/** A large catalog's compile, every few seconds: a start-up that takes a while is not silent. */
function compileProgress(logger: Logger): (done: number, total: number) => void {
  let lastLine = performance.now();
  return (done, total) => {
    if (done === total || performance.now() - lastLine < PROGRESS_EVERY_MS) return;
    lastLine = performance.now();
    logger.info({ done, total }, 'registry: versions compiled');
  };
}
const PROGRESS_EVERY_MS = 2000;

/**
 * REGISTRY_CATALOG_POLL_SECS, for a catalog URL: each check starts a full interval after the last
 * one ended, so that a slow catalog host never has two at once.
 */
function pollCatalog(proc: Process, registry: ModelRegistry): void {
  const { catalog, catalogPollSecs } = proc.config.models!.registry;
  if (catalog.kind !== 'url' || catalogPollSecs === 0) return;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => void registry.checkCatalog().finally(next), catalogPollSecs * 1000);
    timer.unref();
  };
  proc.closers.push(async () => {
    stopped = true;
    clearTimeout(timer);
  });
  next();
}

/** Every refresh's artifact problems, at start-up and later ones alike. */
function logProblems(logger: Logger, report: RefreshReport): void {
  for (const error of report.errors) logger.warn({ registryError: error }, 'registry: artifact problem');
}

/** A listener's port once it listens (port 0 picks one then); undefined if this process has none. */
function boundPort(proc: Process, listener: string): number | undefined {
  return (proc.listeners[listener]?.address() as AddressInfo | null)?.port;
}

/**
 * `handler`: an express app (with its `messages`, kernel/http/express-messages.ts), or a facade's
 * request listener; `refuse`: the envelope of its own refusals.
 */
function listen(proc: Process, name: string, port: number, handler: RequestListener, refuse: Refusal, messages?: MessageClasses): Promise<void> {
  return new Promise((resolve, reject) => {
    const { limits } = proc.config.http;
    const clientAtCap = (client: string) =>
      proc.logger.warn({ listener: name, client, limit: limits.maxConnectionsPerClient }, 'a client holds SERVER_MAX_CONNECTIONS_PER_CLIENT connections; its further ones are closed');
    const server = httpServer(
      stoppingAware(name, handler, () => proc.stopping),
      limits,
      refuse,
      { messages, clientAtCap },
    ).listen(port, proc.config.http.host);
    server.once('listening', () => {
      proc.listeners[name] = server;
      resolve();
    });
    server.once('error', (error) => reject(new Error(`${name}: cannot listen on ${proc.config.http.host}:${port}: ${(error as NodeJS.ErrnoException).code}`)));
  });
}

/**
 * A stop asked for (SIGTERM, tests): the probes answer 503 at once, and for SHUTDOWN_DRAIN_DELAY_MS
 * everything else is still served, so that a load balancer takes this process out before it stops
 * accepting (server/stopping.ts); then the drain.
 */
async function stopGracefully(proc: Process, othersDrained?: SystemOptions['othersDrained'], graceMs?: number): Promise<void> {
  proc.stopping = true;
  await new Promise((resolve) => setTimeout(resolve, proc.config.http.shutdownDrainDelayMs));
  await stopAll(proc, othersDrained, graceMs);
}

/**
 * Stops without losing an answered write (SIGTERM, tests): every listener stops accepting and lets
 * its requests in flight finish within SHUTDOWN_GRACE_MS; the core facade goes last, because the
 * indicator service's computations in flight validate through it (by default this very process,
 * or with WORKERS any of them: `othersDrained`). Then the gateway, and the store last of all (the
 * closers, in reverse order of creation).
 */
async function stopAll(proc: Process, othersDrained?: SystemOptions['othersDrained'], graceMs = proc.config.http.shutdownGraceMs): Promise<void> {
  const deadline = Date.now() + graceMs;
  const { core, ...dependents } = proc.listeners;
  await drain(Object.values(dependents), deadline);
  await othersDrained?.(deadline);
  if (core) await drain([core], deadline);
  for (const close of proc.closers.reverse()) await close().catch(() => undefined);
  proc.closers = [];
}
