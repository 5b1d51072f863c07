import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DomainError } from '../../../kernel/errors.js';
import { withoutSecrets } from '../../../kernel/display-url.js';
import { artifactUrls } from '../domain/artifact-urls.js';
import { parseCalculationArtifact } from '../domain/calculation-artifact.js';
import type { CalculationArtifact } from '../domain/calculation-artifact.js';
import type { CalculationArtifactPort } from '../domain/indicator-service.js';

export interface CalculationArtifactSourceOptions {
  /** `ARTIFACT_BASE_URL_TEMPLATE`: http(s) or file URL with `{version}`. */
  template: string;
  timeoutMs: number;
  /** Reuse without any request for this long, then revalidate with the ETag. */
  freshnessMs: number;
  /** Injectable clock, for tests of the freshness window. */
  now?: () => number;
}

interface CacheEntry {
  artifact: CalculationArtifact;
  etag: string | null;
  checkedAt: number;
}

type Fetched = { modified: true; etag: string | null; body: string } | { modified: false };

/**
 * `calculation.json` per model version, parsed once per fetched body and cached:
 * - fresh (checked less than `freshnessMs` ago): served with no request at all;
 * - stale: revalidated with `If-None-Match`; 304 keeps the parsed artifact, 200 replaces it;
 * - revalidation failing other than 404 while a copy is cached: the copy is served (published
 *   artifacts of a version do not change) and counts as checked, so a host that is down is asked
 *   again once per window, not on every request. A 404 drops the copy: the version is gone.
 * Concurrent loads of one version share one fetch.
 * `file:` URLs (the local profile's bundled sample) get the same treatment, with size and mtime
 * standing in for the ETag.
 */
export class CalculationArtifactSource implements CalculationArtifactPort {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CalculationArtifact>>();
  private readonly now: () => number;

  constructor(private readonly options: CalculationArtifactSourceOptions) {
    this.now = options.now ?? Date.now;
  }

  load(version: string): Promise<CalculationArtifact> {
    const cached = this.cache.get(version);
    if (cached && this.now() - cached.checkedAt < this.options.freshnessMs) return Promise.resolve(cached.artifact);
    let pending = this.loading.get(version);
    if (pending === undefined) {
      pending = this.refresh(version, cached).finally(() => this.loading.delete(version));
      this.loading.set(version, pending);
    }
    return pending;
  }

  private async refresh(version: string, cached: CacheEntry | undefined): Promise<CalculationArtifact> {
    try {
      return await this.fetchAndStore(version, cached);
    } catch (error) {
      const gone = error instanceof DomainError && error.code === 'CALCULATION_ARTIFACT_NOT_FOUND';
      if (cached === undefined || gone) {
        this.cache.delete(version);
        throw error;
      }
      cached.checkedAt = this.now();
      return cached.artifact;
    }
  }

  private async fetchAndStore(version: string, cached: CacheEntry | undefined): Promise<CalculationArtifact> {
    const url = artifactUrls(this.options.template, version).calculation_url;
    const fetched = await this.fetchDocument(url, cached?.etag ?? null);
    if (!fetched.modified) {
      if (cached === undefined) throw artifactError('the artifact host answered 304 to an unconditional request', url);
      cached.checkedAt = this.now();
      return cached.artifact;
    }
    const artifact = parseCalculationArtifact(parseJson(fetched.body, url));
    this.cache.set(version, { artifact, etag: fetched.etag, checkedAt: this.now() });
    return artifact;
  }

  private fetchDocument(url: string, etag: string | null): Promise<Fetched> {
    return url.startsWith('file:') ? readLocal(url, etag) : this.fetchHttp(url, etag);
  }

  private async fetchHttp(url: string, etag: string | null): Promise<Fetched> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const response = await fetch(url, { headers: etag ? { 'if-none-match': etag } : {}, signal });
      if (response.status === 304) return { modified: false };
      if (response.status !== 200) {
        await response.body?.cancel();
        throw statusError(response.status, url);
      }
      return { modified: true, etag: response.headers.get('etag'), body: await response.text() };
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // The signal, not the error's class, tells a timeout apart: errors may come from another realm.
      throw artifactError(signal.aborted ? `the artifact host did not answer within ${this.options.timeoutMs / 1000} s` : 'the artifact host could not be reached', url);
    }
  }
}

async function readLocal(url: string, etag: string | null): Promise<Fetched> {
  try {
    const file = fileURLToPath(url);
    const stats = await stat(file);
    const validator = `"${stats.size}-${stats.mtimeMs}"`;
    if (validator === etag) return { modified: false };
    return { modified: true, etag: validator, body: await readFile(file, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(url);
    throw artifactError('the calculation artifact file could not be read', url);
  }
}

function parseJson(body: string, url: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw artifactError('the calculation artifact is not valid JSON', url);
  }
}

function statusError(status: number, url: string): DomainError {
  if (status === 404) return notFound(url);
  return new DomainError('CALCULATION_ARTIFACT_ERROR', `the artifact host answered with status ${status}`, {
    calculation_url: withoutSecrets(url),
    upstream_status: status,
  });
}

function notFound(url: string): DomainError {
  return new DomainError('CALCULATION_ARTIFACT_NOT_FOUND', 'no calculation artifact is published for this model version', {
    calculation_url: withoutSecrets(url),
  });
}

function artifactError(message: string, url: string): DomainError {
  return new DomainError('CALCULATION_ARTIFACT_ERROR', message, { calculation_url: withoutSecrets(url) });
}
