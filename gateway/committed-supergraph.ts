import { readFile } from 'node:fs/promises';
import { projectPath } from '../kernel/project.js';

/** Where the committed supergraph lives (in the source tree, whether running from sources or dist). */
export const SUPERGRAPH_PATH = projectPath('gateway', 'supergraph.graphql');

/** The supergraph the gateway serves: `npm run compose` wrote it from the subgraphs' code (compose.ts). */
export function readCommittedSupergraph(): Promise<string> {
  return readFile(SUPERGRAPH_PATH, 'utf8');
}
