import { open } from 'node:fs/promises';
import { GraphQLError, parse } from 'graphql';
import type { SubgraphSdl } from '../../gateway/compose.js';
import { CannotRun } from './sources.js';

/**
 * Subgraphs given on the command line (`--subgraph NAME=FILE`) to schema:check and schema:publish:
 * a name composition and the registry keep, and an SDL file read within bounds.
 */

/** A subgraph's name: a letter, then letters, digits, `_` or `-`; 64 characters at most. */
const SUBGRAPH_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The largest SDL file read (1 MiB): our largest subgraph's SDL is some 20 KB. */
export const MAX_SDL_BYTES = 1024 * 1024;

export interface GivenSubgraph {
  name: string;
  /** The SDL file; absent: the code's SDL (schema:publish only). */
  file?: string;
  /** As written on the command line, for messages. */
  entry: string;
}

/** `NAME=FILE`, or `NAME` alone where the code's SDL may stand in (`fileOptional`). */
export function givenSubgraph(entry: string, { fileOptional }: { fileOptional: boolean }): GivenSubgraph {
  const [name, file] = entry.includes('=') ? [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] : [entry, undefined];
  const form = fileOptional ? '<name>[=<file>]' : '<name>=<file>';
  if (!SUBGRAPH_NAME.test(name)) throw new CannotRun(`--subgraph ${entry}: expected ${form}, a name of letters, digits, _ and - (64 at most, a letter first)`);
  if (file === '' || (file === undefined && !fileOptional)) throw new CannotRun(`--subgraph ${entry}: expected ${form}`);
  return { name, file, entry };
}

/** A given subgraph's SDL file: at most MAX_SDL_BYTES, and GraphQL; else a CannotRun naming the entry and why. */
export async function readSdlFile(given: GivenSubgraph & { file: string }): Promise<string> {
  const cannot = (why: string) => new CannotRun(`--subgraph ${given.entry}: ${why}`);
  let text: string;
  try {
    text = await readAtMost(given.file, MAX_SDL_BYTES);
  } catch (error) {
    throw cannot(error instanceof TooLarge ? `more than the ${MAX_SDL_BYTES} bytes an SDL file may have` : (error as Error).message);
  }
  try {
    parse(text, { noLocation: true });
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    const at = error.locations?.[0];
    throw cannot(`not GraphQL SDL: ${error.message}${at ? ` (line ${at.line}, column ${at.column})` : ''}`);
  }
  return text;
}

class TooLarge extends Error {}

/** A file's text, read a chunk at a time up to `maxBytes` (a device or a pipe says no size): past them, TooLarge. */
async function readAtMost(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) return buffer.toString('utf8', 0, length);
      length += bytesRead;
      if (length > maxBytes) throw new TooLarge();
    }
  } finally {
    await handle.close();
  }
}

/** `subgraphs` with `given` in its place, or added after them when it is a new one. */
export function withSubgraph<S extends SubgraphSdl>(subgraphs: readonly S[], given: S): S[] {
  const at = subgraphs.findIndex((s) => s.name === given.name);
  return at === -1 ? [...subgraphs, given] : subgraphs.map((s, i) => (i === at ? given : s));
}
