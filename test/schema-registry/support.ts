import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { type Run, type Script, commandLine, inProcess } from '../support/commands.js';
import { type Backend, onDatabase } from '../subgraphs/models/store/support.js';

/**
 * The registry's commands, and what a test reads of the registry's table. `run` is the command's
 * `run…` function in this jest process (test/support/commands.ts: what the command line does, with
 * the arguments and environment given); `runCommandLine` the command as the npm script runs it on
 * this tree's own build (`npm test` builds first), where the exit code as a user sees it, or two
 * processes at once, is what a test is about.
 */

export type { Run };

export function run(script: Script, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return inProcess(script, args, env);
}

export function runCommandLine(script: Script, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return commandLine(script, args, env);
}

/** A folder of the test's own for SDL files, removed when the scope that made it ends. */
export function sdlFolder(): { write(name: string, sdl: string): string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'schema-registry-'));
  stopAtScopeEnd(() => rmSync(dir, { recursive: true, force: true }));
  return {
    write: (name, sdl) => {
      const file = path.join(dir, name);
      writeFileSync(file, sdl);
      return file;
    },
  };
}

/** The code's SDL of a subgraph, as `npm run schema:print` prints it. */
export async function printedSdl(name: string): Promise<string> {
  const printed = await run('schema-print', ['--subgraph', name]);
  expect(printed.code).toBe(0);
  return printed.stdout;
}

/** The models subgraph without `ModelVersion.label`, which the core facade's GET /models selects. */
export function withoutLabel(modelsSdl: string): string {
  const label = '  """A human-readable name, when the catalog gives one"""\n  label: String\n';
  expect(modelsSdl).toContain(label);
  return modelsSdl.replace(label, '');
}

/** A subgraph of another repository: one root field, Federation 2. */
export const GREETINGS_SDL = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@shareable"])

type Query {
  greeting(name: String!): String!
}
`;

/** The registry's rows, oldest first, as the table holds them. */
export async function versionRows(
  backend: Backend,
  databaseUrl: string,
): Promise<Array<{ id: number; subgraph: string | null; forced_reason: string | null; rollback_of: number | null; author: string; commit: string | null }>> {
  const rows = await onDatabase(backend, databaseUrl, 'SELECT id, subgraph, forced_reason, rollback_of, author, "commit" FROM supergraph_versions ORDER BY id');
  return rows.map((r) => ({
    id: Number(r.id),
    subgraph: (r.subgraph as string | null) ?? null,
    forced_reason: (r.forced_reason as string | null) ?? null,
    rollback_of: r.rollback_of === null ? null : Number(r.rollback_of),
    author: String(r.author),
    commit: (r.commit as string | null) ?? null,
  }));
}
