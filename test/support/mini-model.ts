import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectPath } from '../../kernel/project.js';
import { ArtifactHost } from './artifact-host.js';

/** The suite's own tiny model (JSON Schema, SHACL, OWL) under test/fixtures/mini-model. */
export function miniArtifact(file: 'schema.json' | 'shacl.ttl' | 'owl.ttl'): string {
  return readFileSync(path.join(projectPath('test', 'fixtures', 'mini-model'), file), 'utf8');
}

export const VALID_WIDGET = { id: 'w-1', name: 'Widget one', weight: 2.5, made: '2025-01-02T03:04:05Z' };

/**
 * An artifact host serving the mini model as `mini` 1.0 (root class Widget) and a catalog listing
 * it; `env` is what the registry needs to load from that host over plain HTTP.
 */
export async function miniModelHost(): Promise<{ host: ArtifactHost; env: Record<string, string>; catalog: unknown[] }> {
  const host = await new ArtifactHost().start();
  for (const file of ['schema.json', 'shacl.ttl', 'owl.ttl'] as const) host.serve(`/mini/1.0/${file}`, miniArtifact(file));
  const catalog = [{ model: 'mini', version: '1.0', base_url: `${host.url}/mini/1.0/`, root_class: 'Widget' }];
  host.serve('/catalog.json', JSON.stringify(catalog));
  return {
    host,
    catalog,
    env: {
      REGISTRY_CATALOG_URL: `${host.url}/catalog.json`,
      REGISTRY_REQUIRE_HTTPS: 'false',
      REGISTRY_ALLOWED_HOSTS: new URL(host.url).host,
      REGISTRY_FETCH_TIMEOUT_MS: '2000',
    },
  };
}
