import { availableParallelism } from 'node:os';
import { type Env, ConfigError, InvalidValue, boolean, cidrList, integer, list, oneOf, optional, string, url } from '../kernel/config/env.js';
import { type AuthConfig, readAuthConfig } from '../kernel/identity/auth-config.js';
import { LOG_LEVELS, type LogLevel } from '../kernel/logger.js';
import { DEFAULT_JSON_MAX_DEPTH } from '../kernel/json-depth.js';
import type { BudgetLimits } from '../kernel/request-budget.js';
import type { ServerLimits } from '../kernel/http/http-server.js';
import type { CatalogLocation } from '../subgraphs/models/adapters/catalog-source.js';
import type { FetchPolicy } from '../subgraphs/models/adapters/artifact-fetcher.js';
import { DEFAULT_DATABASE_LIMITS, type DatabaseLimits } from '../database/limits.js';
import { DEFAULT_DATABASE_URL, isDatabaseUrl } from '../database/location.js';
import { SUBGRAPH_NAMES, type SubgraphName } from '../subgraphs/names.js';
import type { DocumentSizeLimits } from '../pipeline/limits/document-size.js';
import type { OperationLimitValues } from '../pipeline/operation-limits.js';
import { type PlannerChoice, choosePlanner } from '../gateway/executor/planner.js';
import { type TrustedDocuments, readTrustedDocuments } from '../gateway/trusted-documents.js';
import type { DailyCaps } from '../gateway/usage/usage-store.js';
import { type IndicatorSettings, readIndicatorSettings } from './indicators-config.js';
import { type ImpactSettings, readImpactSettings } from './impact-config.js';

/**
 * What this process runs (DECISIONS section 1): everything (`all`, the default), one subgraph
 * behind its own GraphQL endpoint, or the gateway and the facades over remote subgraphs.
 */
export type ProcessRole =
  | { role: 'all' }
  | { role: 'subgraph'; subgraph: SubgraphName; port: number; gatewaySecret: string }
  | { role: 'gateway'; subgraphUrls: Record<SubgraphName, string>; gatewaySecret: string; subgraphTimeoutMs: number };

export interface HttpConfig {
  host: string;
  ports: { core: number; indicators: number; impact: number; records: number; gateway: number };
  maxRequestBytes: number;
  /** `SERVER_JSON_MAX_DEPTH`: request bodies nested deeper are 400. */
  maxJsonDepth: number;
  /** `SHUTDOWN_GRACE_MS`: how long a stopping process lets requests in flight finish. */
  shutdownGraceMs: number;
  /**
   * `SHUTDOWN_DRAIN_DELAY_MS`: how long a stopping process keeps serving, its readiness probes
   * answering 503, before it stops accepting: the time a load balancer needs to take it out.
   */
  shutdownDrainDelayMs: number;
  /** Timeouts and the connection cap of every listener. */
  limits: ServerLimits;
}

export interface RegistryConfig {
  catalog: CatalogLocation;
  fetch: FetchPolicy;
  /** REGISTRY_REFRESH_MIN_INTERVAL_SECS: the least time between the end of one refresh run and the start of the next (a caller waits, never refused). */
  minRefreshIntervalSecs: number;
  /** REGISTRY_CATALOG_POLL_SECS: how often a catalog URL is asked whether it changed; 0: never. */
  catalogPollSecs: number;
}

export interface ModelsConfig {
  databaseUrl: string;
  /** How long an idempotency key is remembered (DECISIONS section 3 "create"). */
  idempotencyTtlSecs: number;
  /** DATABASE_POOL_SIZE and the DATABASE_*_TIMEOUT_MS bounds of every wait on the store. */
  storeLimits: DatabaseLimits;
  registry: RegistryConfig;
}

/** GRAPHQL_MAX_TOKENS, GRAPHQL_MAX_FIELDS, GRAPHQL_MAX_LITERAL_DEPTH, GRAPHQL_MAX_LITERAL_VALUES (a document's size), GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_ALIASES, GRAPHQL_MAX_COST, GRAPHQL_MAX_SELECTIONS (an operation's). */
export type GraphQLLimits = DocumentSizeLimits & OperationLimitValues;

export interface SystemConfig {
  process: ProcessRole;
  /** `WORKERS`: processes serving this role's ports together (server/workers.ts); 1: this process alone. */
  workers: number;
  /** `WORKER_HEARTBEAT_TIMEOUT_MS`: a worker that has not answered the primary's heartbeat for this long is killed and replaced. */
  workerHeartbeatTimeoutMs: number;
  /** `WORKER_MAX_RSS_MB`: a worker whose resident memory passes this is drained and replaced (server/workers.ts); 0: never. */
  workerMaxRssBytes: number;
  /** `HEAP_GROWTH_PERCENT`: how far each process's heap may grow past what it holds before a full collection (server/heap-growth.ts); 0: V8's own choice. */
  heapGrowthPercent: number;
  http: HttpConfig;
  auth: AuthConfig;
  logLevel: LogLevel;
  metricsEnabled: boolean;
  /** `ACCESS_LOG`: one log line per request at the edge (pipeline/access-log.ts). */
  accessLog: boolean;
  graphqlIntrospection: boolean;
  /** GRAPHQL_IDE: GraphiQL for browsers at the gateway's `/graphql` (gateway/ide.ts). */
  graphqlIde: boolean;
  graphqlLimits: GraphQLLimits;
  /** REQUEST_MAX_RESPONSE_BYTES, REQUEST_MAX_RECORDS_READ, REQUEST_MAX_DURATION_MS (kernel/request-budget.ts). */
  requestBudget: BudgetLimits;
  /**
   * `REGISTRY_REFRESH_TIMEOUT_SECS`, in milliseconds: how long an admin refresh waits for its run
   * before it answers REGISTRY_ERROR; the refresh's request is held to it instead of
   * REQUEST_MAX_DURATION_MS, at every door and hop (the edge's too, which runs no registry).
   */
  registryRefreshTimeoutMs: number;
  /** PROCESS_MAX_ANSWER_MB: the bytes of answers each process builds and writes at once (kernel/answer-memory.ts); 0: no bound. */
  answerMemoryBytes: number;
  /** GATEWAY_ANSWER_CACHE_MB: subgraph answers reused in this process (gateway/executor/answer-cache.ts), in MB of JSON; 0: none. */
  answerCacheBytes: number;
  /** GRAPHQL_TRUSTED_DOCUMENTS: the manifest of the only documents `/graphql` runs; null: any document. */
  graphqlTrustedDocuments: TrustedDocuments | null;
  /** GATEWAY_PLANNER, resolved against what loads on this platform (gateway/executor/planner.ts); absent where nothing is planned here (a subgraph process). */
  gatewayPlanner?: PlannerChoice;
  /** Settings a deployment still sets that this version no longer reads, each with what replaced it (one start-up line each). */
  retiredSettings: RetiredSetting[];
  /**
   * `CORE_BASE_URL` (alias `HEX_CORE_BASE_URL`): the core the indicator and impact subgraphs name;
   * null: this process's core facade (server/core-url.ts).
   */
  coreBaseUrl: string | null;
  /** Each subgraph's own settings, present when this process runs it. */
  models?: ModelsConfig;
  indicators?: IndicatorSettings;
  impact?: ImpactSettings;
  /** Usage reporting of the gateway's operations (gateway/usage/); absent for a subgraph process. */
  usage?: UsageConfig;
  /** Where an edge's supergraph comes from (SUPERGRAPH_SOURCE); absent for a subgraph process. */
  supergraph?: SupergraphSourceConfig;
}

/**
 * `SUPERGRAPH_SOURCE`: `committed` (the default), the supergraph committed with the code
 * (gateway/supergraph.graphql); `registry`, the schema registry's newest version in the records
 * database, followed while the process runs (server/supergraph-following.ts, docs/DEPLOYMENT.md).
 */
export type SupergraphSourceConfig =
  | { source: 'committed' }
  | {
      source: 'registry';
      /** DATABASE_URL: the records database the registry lives in. */
      databaseUrl: string;
      storeLimits: DatabaseLimits;
      /** SUPERGRAPH_POLL_MS: how often each process asks the registry for its newest version. */
      pollMs: number;
      /** `all` only (the gateway role has its own): SUBGRAPH_TIMEOUT_MS, for subgraphs a version names that run elsewhere. */
      subgraphTimeoutMs?: number;
    };

/** Usage reporting (docs/DECISIONS.md, "Usage reporting and operation checks"). */
export interface UsageConfig {
  /** USAGE_REPORTING: on by default; false switches it off (no counting, no writes, `/admin/usage` 404). */
  enabled: boolean;
  /** DATABASE_URL: the records database, where every worker and replica writes its counts. */
  databaseUrl: string;
  storeLimits: DatabaseLimits;
  /** USAGE_RETENTION_DAYS: counts and operations older than this are deleted. */
  retentionDays: number;
  /** USAGE_FLUSH_SECS: how often each process writes its counts. */
  flushIntervalMs: number;
  /** USAGE_MAX_ENTRIES: distinct (operation, client, day) kept in memory between writes. */
  maxEntries: number;
  /** USAGE_MAX_OPERATIONS_PER_DAY, USAGE_MAX_CLIENTS_PER_DAY, USAGE_MAX_ROWS_PER_DAY: what one day of usage holds, every process together. */
  caps: DailyCaps;
}

const port = integer({ min: 0, max: 65535 });

/**
 * Reads and checks every variable this process needs, the settings of the subgraphs it runs
 * included, before anything starts (a bad value stops the process before any migration or
 * connection); a bad value throws ConfigError naming it. Nothing past this reads the environment.
 */
export function readSystemConfig(env: Env): SystemConfig {
  const process = readProcessRole(env);
  const runs = (name: SubgraphName) => process.role === 'all' || (process.role === 'subgraph' && process.subgraph === name);
  const http = readHttpConfig(env);
  return {
    process,
    // One worker per core by default: a process serves requests on one core only.
    workers: optional(env, 'WORKERS', integer({ min: 1 }), availableParallelism()),
    workerHeartbeatTimeoutMs: optional(env, 'WORKER_HEARTBEAT_TIMEOUT_MS', integer({ min: 1000 }), 10_000),
    // Two and a half times what a worker held at the most under twenty near-cap answers at once (350
    // to 410 MB, bench: graphql.concurrent_large_answers), six times one at rest with a small catalog
    // (160 MB): reached only by memory no limit counts (docs/DEPLOYMENT.md).
    workerMaxRssBytes: optional(env, 'WORKER_MAX_RSS_MB', integer({ min: 0 }), 1024) * 2 ** 20,
    heapGrowthPercent: optional(env, 'HEAP_GROWTH_PERCENT', integer({ min: 0, max: 300 }), 50),
    http,
    auth: readAuthConfig(env),
    logLevel: optional(env, 'LOG_LEVEL', oneOf(LOG_LEVELS), 'info'),
    metricsEnabled: optional(env, 'METRICS_ENABLED', boolean, false),
    accessLog: optional(env, 'ACCESS_LOG', boolean, true),
    graphqlIntrospection: optional(env, 'GRAPHQL_INTROSPECTION', boolean, false),
    graphqlIde: optional(env, 'GRAPHQL_IDE', boolean, false),
    graphqlLimits: readGraphQLLimits(env),
    requestBudget: readRequestBudget(env),
    // Past the request deadline (20 s: a quiet refresh took 6–10 s, one on a machine at load 8–12 more than 20),
    // and short of a load balancer's server timeout (60 s in docs/DEPLOYMENT.md's HAProxy configuration).
    registryRefreshTimeoutMs: optional(env, 'REGISTRY_REFRESH_TIMEOUT_SECS', integer({ min: 1 }), 45) * 1000,
    // Two answers at REQUEST_MAX_RESPONSE_BYTES (32 MiB) at once per process: with what building and
    // writing one costs besides its bytes, a replica of two workers stays within 1.5 GB under
    // twenty of them (bench: graphql.concurrent_large_answers); a screen's pages are kilobytes.
    answerMemoryBytes: optional(env, 'PROCESS_MAX_ANSWER_MB', integer({ min: 0 }), 64) * 2 ** 20,
    answerCacheBytes: optional(env, 'GATEWAY_ANSWER_CACHE_MB', integer({ min: 0 }), 16) * 1024 * 1024,
    graphqlTrustedDocuments: optional(env, 'GRAPHQL_TRUSTED_DOCUMENTS', readTrustedDocuments, null),
    gatewayPlanner: process.role !== 'subgraph' ? readPlanner(env) : undefined,
    retiredSettings: RETIRED_SETTINGS.filter((setting) => setIn(env, setting)),
    coreBaseUrl: optional(env, ['CORE_BASE_URL', 'HEX_CORE_BASE_URL'], url())?.href ?? null,
    models: runs('models') ? readModelsConfig(env) : undefined,
    indicators: runs('indicators') ? readIndicatorSettings(env) : undefined,
    impact: runs('impact') ? readImpactSettings(env) : undefined,
    usage: process.role === 'subgraph' ? undefined : readUsageConfig(env),
    supergraph: process.role === 'subgraph' ? undefined : readSupergraphSource(env, process.role),
  };
}

/**
 * Half a second between polls: a version reaches every worker of every replica within a poll and
 * its load (some hundreds of milliseconds), well within 2 s, for one indexed read of one row per
 * worker per poll. At least 100 ms (ten reads a second per worker), at most a minute.
 */
const SUPERGRAPH_POLL_MS = { default: 500, min: 100, max: 60_000 };

function readSupergraphSource(env: Env, role: 'all' | 'gateway'): SupergraphSourceConfig {
  const source = optional(env, 'SUPERGRAPH_SOURCE', oneOf(['committed', 'registry']), 'committed');
  const pollMs = optional(env, 'SUPERGRAPH_POLL_MS', integer({ min: SUPERGRAPH_POLL_MS.min, max: SUPERGRAPH_POLL_MS.max }), SUPERGRAPH_POLL_MS.default);
  if (source === 'committed') return { source };
  return {
    source,
    databaseUrl: optional(env, 'DATABASE_URL', databaseUrl, DEFAULT_DATABASE_URL),
    storeLimits: readDatabaseLimits(env),
    pollMs,
    ...(role === 'all' && { subgraphTimeoutMs: readSubgraphTimeout(env) }),
  };
}

function readSubgraphTimeout(env: Env): number {
  return optional(env, 'SUBGRAPH_TIMEOUT_MS', integer({ min: 1 }), 30_000);
}

export interface RetiredSetting {
  variable: string;
  /** The one value retired; absent: the variable, whatever its value. */
  value?: string;
  replacedBy: string;
}

/**
 * GATEWAY_EXECUTOR chose between the project's executor and @apollo/gateway's own; every operation
 * now runs on the project's (docs/DECISIONS.md, "The gateway's executor"). GATEWAY_PLANNER=apollo
 * picked Apollo's planner where Hive's loads; it is only the fallback now (gateway/executor/planner.ts).
 * A deployment that still sets them starts, as it would without them, with a line saying so.
 */
const RETIRED_SETTINGS: RetiredSetting[] = [
  {
    variable: 'GATEWAY_EXECUTOR',
    replacedBy: "every operation runs on the project's executor, planned by Hive's query planner (by Apollo's where Hive's binary does not load)",
  },
  {
    variable: 'GATEWAY_PLANNER',
    value: 'apollo',
    replacedBy: "Hive's query planner plans every operation where its binary loads; Apollo's is only the fallback where it does not",
  },
];

/** Whether `env` still sets a retired setting (its variable, or the variable at its one retired value). */
function setIn(env: Env, { variable, value }: RetiredSetting): boolean {
  return env[variable] !== undefined && (value === undefined || env[variable] === value);
}

function readPlanner(env: Env): PlannerChoice {
  // A retired value (`apollo`, RETIRED_SETTINGS) is read as unset.
  const retired = RETIRED_SETTINGS.some((setting) => setting.variable === 'GATEWAY_PLANNER' && setIn(env, setting));
  const requested = retired ? undefined : optional(env, 'GATEWAY_PLANNER', oneOf(['hive']));
  try {
    return choosePlanner(requested);
  } catch (error) {
    throw new ConfigError('GATEWAY_PLANNER', `is hive, but ${(error as Error).message}`);
  }
}

function readUsageConfig(env: Env): UsageConfig {
  return {
    enabled: optional(env, 'USAGE_REPORTING', boolean, true),
    databaseUrl: optional(env, 'DATABASE_URL', databaseUrl, DEFAULT_DATABASE_URL),
    storeLimits: readDatabaseLimits(env),
    retentionDays: optional(env, 'USAGE_RETENTION_DAYS', integer({ min: 1 }), 90),
    flushIntervalMs: optional(env, 'USAGE_FLUSH_SECS', integer({ min: 1 }), 10) * 1000,
    maxEntries: optional(env, 'USAGE_MAX_ENTRIES', integer({ min: 1 }), 2_000),
    caps: {
      operations: optional(env, 'USAGE_MAX_OPERATIONS_PER_DAY', integer({ min: 1 }), 1_000),
      clients: optional(env, 'USAGE_MAX_CLIENTS_PER_DAY', integer({ min: 1 }), 100),
      rows: optional(env, 'USAGE_MAX_ROWS_PER_DAY', integer({ min: 1 }), 10_000),
    },
  };
}

function readProcessRole(env: Env): ProcessRole {
  const role = optional(env, 'PROCESS_ROLE', oneOf(['all', 'subgraph', 'gateway']), 'all');
  if (role === 'all') return { role };
  if (role === 'subgraph') {
    return {
      role,
      subgraph: optional(env, 'SUBGRAPH', oneOf(SUBGRAPH_NAMES), undefined) ?? missing('SUBGRAPH'),
      port: optional(env, 'SUBGRAPH_PORT', port, 4001),
      gatewaySecret: readGatewaySecret(env),
    };
  }
  const urls = Object.fromEntries(
    SUBGRAPH_NAMES.map((name) => {
      const variable = `${name.toUpperCase()}_SUBGRAPH_URL`;
      return [name, optional(env, variable, url(), undefined)?.href ?? missing(variable)];
    }),
  ) as Record<SubgraphName, string>;
  return {
    role,
    subgraphUrls: urls,
    gatewaySecret: readGatewaySecret(env),
    subgraphTimeoutMs: readSubgraphTimeout(env),
  };
}

/**
 * Distributed mode: the secret the gateway sends and its subgraphs check, so that only the gateway
 * may run the fields that need no identity (server/subgraph-server.ts). Long enough not to be guessed.
 */
function readGatewaySecret(env: Env): string {
  return optional(env, 'GATEWAY_SUBGRAPH_SECRET', secret, undefined) ?? missing('GATEWAY_SUBGRAPH_SECRET');
}

const secret = (value: string): string => {
  if (value.length < 16) throw new InvalidValue('must be at least 16 characters long');
  return value;
};

/**
 * The defaults leave room above our deepest real operation (the questionnaire: depth 6, cost 11 111)
 * and the largest documents clients send (the full introspection query: 184 tokens, 60 fields), and
 * keep the worst document within them validated in well under a second (bench: `graphql.hostile_document`).
 * Literals: the deepest in a real operation is a records filter (4: `{ conditions: [{ value: { … } }] }`),
 * the deepest payload a client might write inline an assessment (5); 10 and 1,000 values keep the
 * worst literal walk (2^depth per value, document-size.ts) at milliseconds. Selections once fragments
 * are spread: the largest deployed operation holds 33, the full introspection query 239; Hive's
 * planner inlines every spread before it plans, 12,288 selections (a doubling chain of 12 fragments)
 * in 9 ms, 3.1 million (20) in 4 to 16 s, so 2,000 keeps what it expands at milliseconds.
 */
function readGraphQLLimits(env: Env): GraphQLLimits {
  return {
    maxTokens: optional(env, 'GRAPHQL_MAX_TOKENS', integer({ min: 1 }), 3000),
    maxFields: optional(env, 'GRAPHQL_MAX_FIELDS', integer({ min: 1 }), 500),
    maxLiteralDepth: optional(env, 'GRAPHQL_MAX_LITERAL_DEPTH', integer({ min: 1 }), 10),
    maxLiteralValues: optional(env, 'GRAPHQL_MAX_LITERAL_VALUES', integer({ min: 1 }), 1000),
    maxDepth: optional(env, 'GRAPHQL_MAX_DEPTH', integer({ min: 1 }), 10),
    maxAliases: optional(env, 'GRAPHQL_MAX_ALIASES', integer({ min: 0 }), 15),
    maxCost: optional(env, 'GRAPHQL_MAX_COST', integer({ min: 1 }), 50000),
    maxSelections: optional(env, 'GRAPHQL_MAX_SELECTIONS', integer({ min: 1 }), 2000),
  };
}

/**
 * Each request's runtime budget; 0 turns a cap off. 32 MiB of answer: twice the largest artifact
 * the registry reads (REGISTRY_ARTIFACT_MAX_BYTES, 16 MiB), so an artifact at that cap is still
 * served whole, while the answers the red team made (218 to 324 MB) are far above it; a screen's
 * page is kilobytes. 10,000 records: ten full pages of the largest `first` (1,000) in one request.
 * 20 s: a statement (DATABASE_STATEMENT_TIMEOUT_MS, 10 s) after the longest wait for a connection
 * (DATABASE_ACQUIRE_TIMEOUT_MS, 10 s), and below SUBGRAPH_TIMEOUT_MS and SERVER_REQUEST_TIMEOUT_MS
 * (30 s), so the budget answers first.
 */
function readRequestBudget(env: Env): BudgetLimits {
  return {
    maxResponseBytes: optional(env, 'REQUEST_MAX_RESPONSE_BYTES', integer({ min: 0 }), 32 * 1024 * 1024),
    maxRecordsRead: optional(env, 'REQUEST_MAX_RECORDS_READ', integer({ min: 0 }), 10_000),
    maxDurationMs: optional(env, 'REQUEST_MAX_DURATION_MS', integer({ min: 0 }), 20_000),
  };
}

function readModelsConfig(env: Env): ModelsConfig {
  return {
    databaseUrl: optional(env, 'DATABASE_URL', databaseUrl, DEFAULT_DATABASE_URL),
    idempotencyTtlSecs: optional(env, 'IDEMPOTENCY_TTL_SECS', integer({ min: 1 }), 86400),
    storeLimits: readDatabaseLimits(env),
    registry: readRegistryConfig(env),
  };
}

/** Defaults and their reasons: database/limits.ts; sizing against max_connections: docs/DECISIONS.md. */
function readDatabaseLimits(env: Env): DatabaseLimits {
  const positive = integer({ min: 1 });
  return {
    poolSize: optional(env, 'DATABASE_POOL_SIZE', positive, DEFAULT_DATABASE_LIMITS.poolSize),
    acquireTimeoutMs: optional(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', positive, DEFAULT_DATABASE_LIMITS.acquireTimeoutMs),
    statementTimeoutMs: optional(env, 'DATABASE_STATEMENT_TIMEOUT_MS', positive, DEFAULT_DATABASE_LIMITS.statementTimeoutMs),
    pingTimeoutMs: optional(env, 'DATABASE_PING_TIMEOUT_MS', positive, DEFAULT_DATABASE_LIMITS.pingTimeoutMs),
  };
}

function readHttpConfig(env: Env): HttpConfig {
  return {
    host: optional(env, ['SERVER_HOST', 'BIND_ADDRESS'], string, '0.0.0.0'),
    ports: {
      core: optional(env, ['CORE_PORT', 'SERVER_PORT'], port, 8080),
      indicators: optional(env, 'INDICATORS_PORT', port, 8081),
      impact: optional(env, 'IMPACT_PORT', port, 8082),
      records: optional(env, 'RECORDS_PORT', port, 8083),
      gateway: optional(env, 'GATEWAY_PORT', port, 4000),
    },
    maxRequestBytes: optional(env, 'SERVER_REQUEST_MAX_BYTES', integer({ min: 1 }), 1048576),
    maxJsonDepth: optional(env, 'SERVER_JSON_MAX_DEPTH', integer({ min: 1 }), DEFAULT_JSON_MAX_DEPTH),
    shutdownGraceMs: optional(env, 'SHUTDOWN_GRACE_MS', integer({ min: 0 }), 10000),
    shutdownDrainDelayMs: optional(env, 'SHUTDOWN_DRAIN_DELAY_MS', integer({ min: 0 }), 0),
    limits: {
      headersTimeoutMs: optional(env, 'SERVER_HEADERS_TIMEOUT_MS', integer({ min: 1 }), 10_000),
      requestTimeoutMs: optional(env, 'SERVER_REQUEST_TIMEOUT_MS', integer({ min: 1 }), 30_000),
      keepAliveTimeoutMs: optional(env, 'SERVER_KEEP_ALIVE_TIMEOUT_MS', integer({ min: 1 }), 5_000),
      maxConnections: optional(env, 'SERVER_MAX_CONNECTIONS', integer({ min: 1 }), 4096),
      // A sixteenth of the default SERVER_MAX_CONNECTIONS: one client's flood leaves 3,840 of each worker's connections to the others.
      maxConnectionsPerClient: optional(env, 'SERVER_MAX_CONNECTIONS_PER_CLIENT', integer({ min: 1 }), 256),
      proxyAddresses: optional(env, 'SERVER_PROXY_ADDRESSES', cidrList, []),
    },
  };
}

function readRegistryConfig(env: Env): RegistryConfig {
  return {
    catalog: readCatalogLocation(env),
    fetch: {
      allowedHosts: optional(env, 'REGISTRY_ALLOWED_HOSTS', list(','), undefined)?.map((h) => h.toLowerCase()) ?? null,
      requireHttps: optional(env, 'REGISTRY_REQUIRE_HTTPS', boolean, true),
      allowFileUrls: optional(env, 'REGISTRY_ALLOW_FILE_URLS', boolean, false),
      timeoutMs: optional(env, 'REGISTRY_FETCH_TIMEOUT_MS', integer({ min: 1 }), 10000),
      // 16 MiB: eight times the largest published artifact (docs/DECISIONS.md, "Registry refresh").
      maxBytes: optional(env, 'REGISTRY_ARTIFACT_MAX_BYTES', integer({ min: 1 }), 16 * 1024 * 1024),
    },
    minRefreshIntervalSecs: optional(env, 'REGISTRY_REFRESH_MIN_INTERVAL_SECS', integer({ min: 0 }), 1),
    catalogPollSecs: optional(env, 'REGISTRY_CATALOG_POLL_SECS', integer({ min: 0 }), 30),
  };
}

const CATALOG_VARIABLES = ['REGISTRY_CATALOG_JSON', 'REGISTRY_CATALOG_FILE', 'REGISTRY_CATALOG_URL'] as const;

function readCatalogLocation(env: Env): CatalogLocation {
  const set = CATALOG_VARIABLES.filter((name) => env[name] !== undefined);
  if (set.length !== 1) {
    throw new ConfigError(CATALOG_VARIABLES.join(' / '), set.length === 0 ? 'exactly one must be set' : `only one may be set (got ${set.join(', ')})`);
  }
  const value = optional(env, set[0]!, string)!;
  switch (set[0]) {
    case 'REGISTRY_CATALOG_JSON':
      return { kind: 'json', json: value };
    case 'REGISTRY_CATALOG_FILE':
      return { kind: 'file', path: value };
    default:
      return { kind: 'url', url: value };
  }
}

const databaseUrl = (value: string): string => {
  if (isDatabaseUrl(value)) return value;
  throw new InvalidValue('must be file:<path> (SQLite) or postgresql://… (PostgreSQL)');
};

function missing(variable: string): never {
  throw new ConfigError(variable, 'is required for this PROCESS_ROLE');
}
