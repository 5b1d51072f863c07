import type { Logger } from 'pino';
import { displayUrl } from '../kernel/display-url.js';
import { describeDatabase } from '../database/location.js';
import type { SystemConfig } from './config.js';

/** The process role as logs and metrics name it: `all`, `gateway` or `subgraph:<name>`. */
export function roleName(config: SystemConfig): string {
  return config.process.role === 'subgraph' ? `subgraph:${config.process.subgraph}` : config.process.role;
}

/**
 * What the `started` line says besides the ports, for the operator reading it: what runs here, how
 * many workers, which store, auth mode and catalog, which planner, and for an edge the supergraph's
 * version (`supergraphVersion`, as the serving process loaded it; `supergraphSource` when it follows
 * the schema registry) and a gateway's subgraph URLs.
 * Addresses as `displayUrl` shows them: no credential, query or inline catalog reaches the log.
 */
export function startupSummary(config: SystemConfig, supergraphVersion?: string): Record<string, unknown> {
  const models = config.models;
  return {
    role: roleName(config),
    workers: config.workers,
    heapGrowthPercent: config.heapGrowthPercent,
    auth: config.auth.mode,
    ...(models && { store: describeDatabase(models.databaseUrl), catalog: catalogOf(models.registry.catalog) }),
    ...(config.gatewayPlanner && { planner: config.gatewayPlanner.mode }),
    ...(supergraphVersion && { supergraph: supergraphVersion }),
    ...(config.supergraph?.source === 'registry' && { supergraphSource: 'registry' }),
    ...(config.process.role === 'gateway' && { subgraphs: Object.fromEntries(Object.entries(config.process.subgraphUrls).map(([name, url]) => [name, displayUrl(url)])) }),
  };
}

/**
 * The lines an operator should read before `started`: Hive's planner, the default, does not load
 * here; a setting this version no longer reads is still set.
 */
export function startupWarnings(config: SystemConfig, logger: Pick<Logger, 'warn'>): void {
  const fallback = config.gatewayPlanner?.fallback;
  if (fallback) logger.warn({ planner: 'apollo' }, fallback);
  for (const { variable, value, replacedBy } of config.retiredSettings) {
    logger.warn({ variable }, `${value === undefined ? variable : `${variable}=${value}`} is no longer read: ${replacedBy}`);
  }
}

function catalogOf(catalog: NonNullable<SystemConfig['models']>['registry']['catalog']): string {
  if (catalog.kind === 'url') return displayUrl(catalog.url);
  if (catalog.kind === 'file') return `file ${catalog.path}`;
  return 'inline (REGISTRY_CATALOG_JSON)';
}
