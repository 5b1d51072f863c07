import { createHash } from 'node:crypto';
import type { CatalogSource } from '../domain/registry/model-registry.js';
import { displayUrl } from '../../../kernel/display-url.js';
import type { ArtifactFetcher } from './artifact-fetcher.js';

/** Exactly one of the three catalog variables is set (checked when the configuration is read). */
export type CatalogLocation = { kind: 'json'; json: string } | { kind: 'file'; path: string } | { kind: 'url'; url: string };

/**
 * The catalog URL goes through the artifact fetcher, so the host allow-list, the HTTPS rule and the
 * size cap apply to it too; the catalog file is read under the same size cap. Only a catalog URL
 * can say whether it changed (REGISTRY_CATALOG_POLL_SECS).
 */
export function catalogSource(location: CatalogLocation, fetcher: ArtifactFetcher): CatalogSource {
  if (location.kind === 'url') return new HttpCatalog(location.url, fetcher);
  return {
    async load() {
      return JSON.parse(await localText(location, fetcher)) as unknown;
    },
  };
}

async function localText(location: Exclude<CatalogLocation, { kind: 'url' }>, fetcher: ArtifactFetcher): Promise<string> {
  if (location.kind === 'json') return location.json;
  const outcome = await fetcher.readFile(location.path);
  if (!outcome.found) throw new Error(`catalog file not found: ${location.path}`);
  return outcome.body.toString('utf8');
}

/**
 * A catalog served over HTTP. It remembers the ETag and digest of the body it last loaded: a poll
 * is a conditional GET (304: unchanged), and a full answer counts as a change only if its body
 * differs (a server without ETags, or one that changes them for the same content).
 */
class HttpCatalog implements CatalogSource {
  private loaded?: { etag?: string; digest: string };

  constructor(
    private readonly url: string,
    private readonly fetcher: ArtifactFetcher,
  ) {}

  async load(): Promise<unknown> {
    const outcome = await this.fetcher.fetch(this.url);
    if (!outcome.found) throw new Error(`catalog URL answered 404: ${displayUrl(this.url)}`);
    // Remembered before parsing: a broken catalog is not fetched again until it changes.
    this.loaded = { etag: outcome.etag, digest: digestOf(outcome.body) };
    return JSON.parse(outcome.body.toString('utf8')) as unknown;
  }

  /** True before any load got a body, so that a catalog unreachable at start-up is retried at each poll. */
  async changed(): Promise<boolean> {
    if (!this.loaded) return true;
    const outcome = await this.fetcher.fetchUnlessMatching(this.url, this.loaded.etag);
    if ('unchanged' in outcome || !outcome.found) return false;
    return digestOf(outcome.body) !== this.loaded.digest;
  }
}

function digestOf(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
