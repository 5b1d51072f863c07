import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root, found the same way from sources (tests) and from `dist/` (built code). */
function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + start);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

export const PROJECT_VERSION: string = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export function projectPath(...parts: string[]): string {
  return path.join(PROJECT_ROOT, ...parts);
}
