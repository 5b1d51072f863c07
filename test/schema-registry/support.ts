import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectPath } from '../../kernel/project.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { type Backend, onDatabase } from '../subgraphs/models/store/support.js';

/**
 * The registry's commands as the npm scripts run them on this tree's own build (`npm test` builds
 * first), and what a test reads of the registry's table.
 */

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** What the commands read from the environment: only what the test gives. */
const READ_FROM_ENV = ['DATABASE_URL', 'GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'GITHUB_BASE_REF', 'GITHUB_SHA', 'SCHEMA_CHECK_TOKEN', 'SCHEMA_PUBLISH_AUTHOR'];

export function run(script: 'schema-publish' | 'schema-check' | 'schema-print', args: string[], env: Record<string, string> = {}): Promise<Run> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !READ_FROM_ENV.includes(k)));
  return new Promise((resolve) => {
    execFile(process.execPath, [projectPath('dist', 'server', `${script}.js`), ...args], { cwd: projectPath(), env: { ...inherited, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
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
