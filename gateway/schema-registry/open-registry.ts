import { openDatabase } from '../../database/database.js';
import type { DatabaseLimits } from '../../database/limits.js';
import { SupergraphVersions } from './supergraph-versions.js';

export interface OpenRegistry {
  versions: SupergraphVersions;
  close(): Promise<void>;
}

/**
 * The registry on the records database DATABASE_URL names, migrated (an empty database gets its
 * tables), on a pool of its own of `poolSize` connections: a publish or a read of versions never
 * waits behind the records' requests.
 */
export async function openRegistry(databaseUrl: string, limits: DatabaseLimits, poolSize = 1): Promise<OpenRegistry> {
  const database = await openDatabase(databaseUrl, { limits: { ...limits, poolSize } });
  try {
    await database.migrate();
  } catch (error) {
    await database.close();
    throw error;
  }
  return { versions: new SupergraphVersions(database), close: () => database.close() };
}

/**
 * The registry opened at the first call that needs it (a gateway's `/admin/supergraph/versions`):
 * a process nobody asks opens nothing. An open that fails is tried again by the next call.
 */
export function registryOnDemand(databaseUrl: string, limits: DatabaseLimits): { versions(): Promise<SupergraphVersions>; close(): Promise<void> } {
  let opened: Promise<OpenRegistry> | undefined;
  return {
    versions: async () => {
      opened ??= openRegistry(databaseUrl, limits).catch((error: unknown) => {
        opened = undefined;
        throw error;
      });
      return (await opened).versions;
    },
    close: async () => (await opened?.catch(() => undefined))?.close(),
  };
}
