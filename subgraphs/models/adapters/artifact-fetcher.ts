import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { displayUrl } from '../../../kernel/display-url.js';

/** Where the registry may fetch from (DECISIONS section 3, "Registry"). */
export interface FetchPolicy {
  /** `host` or `host:port`, lower case; null = any host. */
  allowedHosts: string[] | null;
  requireHttps: boolean;
  allowFileUrls: boolean;
  timeoutMs: number;
  /** REGISTRY_ARTIFACT_MAX_BYTES: a larger body (catalog or artifact) fails, read no further than that. */
  maxBytes: number;
}

/** `etag`: the server's `ETag` header, when it sent one (never for files). */
export type FetchOutcome = { found: true; body: Buffer; etag?: string } | { found: false };

/**
 * A fetch that failed for a reason other than 404; the message is safe to show to clients: URLs
 * appear as `displayUrl` renders them, never with their credentials or query.
 */
export class ArtifactFetchError extends Error {}

const MAX_REDIRECTS = 5;

/**
 * Fetches catalog and artifact URLs. Every hop of a redirect chain is checked against the policy,
 * so an allowed host cannot bounce the registry to a forbidden one.
 */
export class ArtifactFetcher {
  constructor(private readonly policy: FetchPolicy) {}

  fetch(url: string): Promise<FetchOutcome> {
    // Without an ETag to match there is no `unchanged` answer.
    return this.fetchUnlessMatching(url, undefined) as Promise<FetchOutcome>;
  }

  /**
   * A conditional GET (`If-None-Match`, sent on every hop): `unchanged` when the server answers 304
   * for the copy of that ETag. Files and servers without ETags answer in full.
   */
  async fetchUnlessMatching(url: string, etag: string | undefined): Promise<FetchOutcome | { unchanged: true }> {
    let target = this.checked(url);
    if (target.protocol === 'file:') return this.readLocal(fileURLToPath(target), displayUrl(target));
    const signal = AbortSignal.timeout(this.policy.timeoutMs);
    const conditions: Record<string, string> = etag === undefined ? {} : { 'if-none-match': etag };
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await this.request(target, signal, conditions);
      if (isRedirect(response.status)) {
        const location = response.headers.get('location');
        if (!location) throw new ArtifactFetchError(`${displayUrl(target)} redirected without a location`);
        target = this.checked(new URL(location, target).href);
        continue;
      }
      if (response.status === 304 && etag !== undefined) return { unchanged: true };
      if (response.status === 404) return { found: false };
      if (!response.ok) throw new ArtifactFetchError(`${displayUrl(target)} answered HTTP ${response.status}`);
      return { found: true, body: await this.body(response, target), etag: response.headers.get('etag') ?? undefined };
    }
    throw new ArtifactFetchError(`${displayUrl(url)} redirected more than ${MAX_REDIRECTS} times`);
  }

  /** A local file (REGISTRY_CATALOG_FILE): REGISTRY_ALLOW_FILE_URLS is about the URLs a catalog lists, not this. */
  readFile(path: string): Promise<FetchOutcome> {
    return this.readLocal(path, path);
  }

  private checked(url: string): URL {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new ArtifactFetchError('not a valid URL');
    }
    if (target.protocol === 'file:') {
      if (!this.policy.allowFileUrls) throw new ArtifactFetchError(`file URLs are not allowed: ${displayUrl(target)} (REGISTRY_ALLOW_FILE_URLS=true allows them)`);
      return target;
    }
    const httpsOnly = this.policy.requireHttps;
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && !httpsOnly)) {
      throw new ArtifactFetchError(httpsOnly ? `HTTPS is required: ${displayUrl(target)} (REGISTRY_REQUIRE_HTTPS=false allows http)` : `unsupported scheme: ${displayUrl(target)}`);
    }
    if (!this.hostAllowed(target)) throw new ArtifactFetchError(`host not allowed: ${target.host} (not in REGISTRY_ALLOWED_HOSTS)`);
    return target;
  }

  private hostAllowed(target: URL): boolean {
    const allowed = this.policy.allowedHosts;
    if (!allowed) return true;
    const host = target.host.toLowerCase();
    const hostname = target.hostname.toLowerCase();
    return allowed.includes(host) || allowed.includes(hostname);
  }

  private async request(target: URL, signal: AbortSignal, conditions: Record<string, string>): Promise<Response> {
    try {
      return await fetch(withoutCredentials(target), { redirect: 'manual', signal, headers: { ...conditions, ...basicAuthorization(target) } });
    } catch (error) {
      throw new ArtifactFetchError(`${displayUrl(target)} could not be fetched: ${describe(error)}`);
    }
  }

  /** A Content-Length over the cap is refused before any byte of the body is read. */
  private async body(response: Response, target: URL): Promise<Buffer> {
    const declared = Number(response.headers.get('content-length'));
    if (declared > this.policy.maxBytes) {
      await response.body?.cancel();
      throw this.tooLarge(displayUrl(target), `its Content-Length is ${declared}`);
    }
    let body: Buffer | undefined;
    try {
      body = await readCapped(response.body ?? [], this.policy.maxBytes);
    } catch (error) {
      throw new ArtifactFetchError(`${displayUrl(target)} could not be read: ${describe(error)}`);
    }
    if (!body) throw this.tooLarge(displayUrl(target), 'reading stopped there');
    return body;
  }

  private async readLocal(path: string, shownAs: string): Promise<FetchOutcome> {
    let body: Buffer | undefined;
    try {
      body = await readCapped(createReadStream(path), this.policy.maxBytes);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false };
      throw new ArtifactFetchError(`${shownAs} could not be read`);
    }
    if (!body) throw this.tooLarge(shownAs, 'reading stopped there');
    return { found: true, body };
  }

  private tooLarge(shownAs: string, detail: string): ArtifactFetchError {
    return new ArtifactFetchError(`${shownAs} is larger than REGISTRY_ARTIFACT_MAX_BYTES (${this.policy.maxBytes} bytes): ${detail}`);
  }
}

/**
 * The chunks joined, or undefined as soon as they pass `maxBytes`: leaving the loop early cancels
 * the response body (or closes the file), so nothing past the cap is read or kept.
 */
async function readCapped(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, maxBytes: number): Promise<Buffer | undefined> {
  const read: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > maxBytes) return undefined;
    read.push(chunk);
  }
  return Buffer.concat(read, size);
}

/**
 * fetch refuses a URL that carries `user:password@`: they go as Basic authentication instead, to
 * that URL's origin only. A redirect elsewhere does not carry them (a relative one keeps them: the
 * URL it resolves to inherits them, as URL resolution does).
 */
function withoutCredentials(target: URL): URL {
  const url = new URL(target);
  url.username = '';
  url.password = '';
  return url;
}

function basicAuthorization(target: URL): Record<string, string> {
  if (!target.username && !target.password) return {};
  const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/** A short reason without upstream bodies: timeouts and network errors by name only. */
function describe(error: unknown): string {
  // By name, not instanceof: the DOMException may come from another realm.
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return cause ? `network error ${cause}` : 'network error';
}
