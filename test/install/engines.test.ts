import { readFileSync } from 'node:fs';
import semver from 'semver';
import { projectPath } from '../../kernel/project.js';

/**
 * `npm ci` warns EBADENGINE for every installed package whose `engines.node` leaves out the Node
 * running it. The lock records each package's `engines`: every one must take every Node version
 * that package.json's `engines` promises, so that an install on a supported line prints none
 * (docs/DECISIONS.md, "Node lines, installation, no network of its own"). CI also resolves the lock on each line (`npm ci --dry-run`, .ci/node-lines).
 */

interface Lock {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
}

const supported = (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const lock = JSON.parse(readFileSync(projectPath('package-lock.json'), 'utf8')) as Lock;

test('engines names the Node lines this project supports', () => {
  for (const line of ['20', '22', '24']) expect(semver.intersects(supported, `${line}.x`)).toBe(true);
  expect(semver.intersects(supported, '<=19 || >=25')).toBe(false);
});

test('every locked package runs on every Node version package.json supports', () => {
  const narrower = Object.entries(lock.packages)
    .map(([where, entry]) => ({ where, version: entry.version, node: Array.isArray(entry.engines) ? undefined : entry.engines?.node }))
    .filter(({ where, node }) => where !== '' && node !== undefined && !semver.subset(supported, node))
    .map(({ where, version, node }) => `${where.replace(/^.*node_modules\//, '')}@${version} wants node ${node}`);
  expect(narrower).toEqual([]);
});
