import { subgraphSdls } from '../../gateway/compose.js';
import { readCommittedSupergraph } from '../../gateway/committed-supergraph.js';
import { type OpenRegistry, openRegistry } from '../../gateway/schema-registry/open-registry.js';
import type { PublishedSubgraph, SupergraphVersion, SupergraphVersions } from '../../gateway/schema-registry/supergraph-versions.js';
import { DEFAULT_DATABASE_LIMITS } from '../../database/limits.js';
import { DEFAULT_DATABASE_URL, describeDatabase } from '../../database/location.js';
import { type Baseline, CannotRun } from './sources.js';

/**
 * What a check or a publish against the schema registry composes with and diffs against: its
 * newest version's subgraphs and supergraph; while the registry is empty, the subgraphs of this
 * repository's code (routing URL null) and the committed supergraph.
 */
export interface RegistryBase {
  previous: SupergraphVersion | undefined;
  subgraphs: PublishedSubgraph[];
  baseline: Baseline;
}

export async function registryBase(previous: SupergraphVersion | undefined): Promise<RegistryBase> {
  if (previous) return { previous, subgraphs: previous.subgraphs, baseline: { sdl: previous.supergraphSdl, source: versionName(previous) } };
  const code = await subgraphSdls();
  return { previous, subgraphs: code.map((s) => ({ ...s, url: null })), baseline: { sdl: await readCommittedSupergraph(), source: 'gateway/supergraph.graphql (the registry is empty)' } };
}

/** A version as reports name it. */
export function versionName(version: Pick<SupergraphVersion, 'id' | 'supergraphHash'>): string {
  return `registry version ${version.id} (${version.supergraphHash})`;
}

/**
 * `work` on the registry in the database `databaseUrl` names (DATABASE_URL; the server's default
 * when unset), closed after. A database that cannot be opened cannot run (exit 2), named without
 * its credentials, with the driver's reason.
 */
export async function withRegistry<T>(databaseUrl: string | undefined, work: (versions: SupergraphVersions) => Promise<T>): Promise<T> {
  const url = databaseUrl || DEFAULT_DATABASE_URL;
  let registry: OpenRegistry;
  try {
    registry = await openRegistry(url, DEFAULT_DATABASE_LIMITS, 2);
  } catch (error) {
    throw new CannotRun(`the registry in DATABASE_URL (${describeDatabase(url)}) cannot be opened: ${reasonOf(error)}`);
  }
  try {
    return await work(registry.versions);
  } finally {
    await registry.close();
  }
}

/** An error's message and its cause's (the database's failures keep the driver's reason as `cause`). */
export function reasonOf(error: unknown): string {
  const { message, cause } = error as Error;
  const reason = cause instanceof Error && cause.message && cause.message !== message ? `${message}: ${cause.message}` : message;
  // A driver may repeat a URL it was given; its credentials never go further.
  return reason.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1');
}
