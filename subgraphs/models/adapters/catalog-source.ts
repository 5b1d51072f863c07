import { readFile } from 'node:fs/promises';
import type { CatalogSource } from '../domain/registry/model-registry.js';
import type { ArtifactFetcher } from './artifact-fetcher.js';

/** Exactly one of the three catalog variables is set (checked when the configuration is read). */
export type CatalogLocation = { kind: 'json'; json: string } | { kind: 'file'; path: string } | { kind: 'url'; url: string };

/** The catalog URL goes through the artifact fetcher, so the host allow-list and HTTPS rule apply to it too. */
export function catalogSource(location: CatalogLocation, fetcher: ArtifactFetcher): CatalogSource {
  return {
    async load() {
      return JSON.parse(await catalogText(location, fetcher)) as unknown;
    },
  };
}

async function catalogText(location: CatalogLocation, fetcher: ArtifactFetcher): Promise<string> {
  switch (location.kind) {
    case 'json':
      return location.json;
    case 'file':
      return readFile(location.path, 'utf8');
    case 'url': {
      const outcome = await fetcher.fetch(location.url);
      if (!outcome.found) throw new Error(`catalog URL answered 404: ${location.url}`);
      return outcome.body.toString('utf8');
    }
  }
}
