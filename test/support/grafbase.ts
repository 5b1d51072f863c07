import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectPath } from '../../kernel/project.js';

/**
 * Grafbase's CLI (`@grafbase/cli-x86_64-unknown-linux-musl`), a linux-x64 binary installed apart
 * (`npm run tools:grafbase`, tools/grafbase/), never by `npm ci`: its composer
 * (test/federation/composers.test.ts) and its gateway, `grafbase dev` (the bench's `grafbase` peer,
 * bench/processes.ts).
 */
export const GRAFBASE_CLI = projectPath('tools', 'grafbase', 'node_modules', '@grafbase', 'cli-x86_64-unknown-linux-musl', 'grafbase');

/** Why the CLI cannot run here, or null when it is installed. */
export function grafbaseMissing(): string | null {
  return existsSync(GRAFBASE_CLI) ? null : `Grafbase's CLI not found at ${GRAFBASE_CLI} (npm run tools:grafbase installs it, on linux-x64)`;
}

/** A header the gateway adds to every subgraph request (a `[[headers]]` insert rule). */
export interface InsertedHeader {
  name: string;
  value: string;
}

/**
 * A `grafbase.toml` in `dir` naming each subgraph's URL and its SDL (written beside it as
 * `<name>.graphql`), and the headers the gateway inserts into every subgraph request; its path.
 * What both `grafbase compose` and `grafbase dev` read, offline.
 */
export function writeGrafbaseConfig(dir: string, subgraphs: ReadonlyArray<{ name: string; url: string; sdl: string }>, headers: readonly InsertedHeader[] = []): string {
  const sections = subgraphs.map(({ name, url, sdl }) => {
    const file = path.join(dir, `${name}.graphql`);
    writeFileSync(file, sdl);
    return `[subgraphs.${name}]\nurl = ${JSON.stringify(url)}\nschema_path = ${JSON.stringify(file)}\n`;
  });
  const rules = headers.map(({ name, value }) => `[[headers]]\nrule = "insert"\nname = ${JSON.stringify(name)}\nvalue = ${JSON.stringify(value)}\n`);
  const config = path.join(dir, 'grafbase.toml');
  writeFileSync(config, [...sections, ...rules].join('\n'));
  return config;
}
