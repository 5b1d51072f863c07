import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { projectPath } from '../kernel/project.js';

/** Where the committed supergraph lives (in the source tree, whether running from sources or dist). */
export const SUPERGRAPH_PATH = projectPath('gateway', 'supergraph.graphql');

/** The supergraph the gateway serves: `npm run compose` wrote it from the subgraphs' code (compose.ts). */
export function readCommittedSupergraph(): Promise<string> {
  return readFile(SUPERGRAPH_PATH, 'utf8');
}

/**
 * The supergraph's version as metrics (`supergraph_version_info`) and the `started` line name it:
 * until a schema registry numbers them, 16 hex digits of the SHA-256 of its SDL, the same wherever
 * the same supergraph is served.
 */
export function supergraphVersion(sdl: string): string {
  return createHash('sha256').update(sdl).digest('hex').slice(0, 16);
}
