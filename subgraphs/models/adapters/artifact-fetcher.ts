import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Where the registry may fetch from (DECISIONS section 3, "Registry"). */
export interface FetchPolicy {
  /** `host` or `host:port`, lower case; null = any host. */
  allowedHosts: string[] | null;
  requireHttps: boolean;
  allowFileUrls: boolean;
  timeoutMs: number;
}

export type FetchOutcome = { found: true; body: Buffer } | { found: false };

/** A fetch that failed for a reason other than 404; the message is safe to show to clients. */
export class ArtifactFetchError extends Error {}

const MAX_REDIRECTS = 5;

/**
 * Fetches catalog and artifact URLs. Every hop of a redirect chain is checked against the policy,
 * so an allowed host cannot bounce the registry to a forbidden one.
 */
export class ArtifactFetcher {
  constructor(private readonly policy: FetchPolicy) {}

  async fetch(url: string): Promise<FetchOutcome> {
    let target = this.checked(url);
    if (target.protocol === 'file:') return this.readLocal(target);
    const signal = AbortSignal.timeout(this.policy.timeoutMs);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await this.request(target, signal);
      if (isRedirect(response.status)) {
        const location = response.headers.get('location');
        if (!location) throw new ArtifactFetchError(`${target.href} redirected without a location`);
        target = this.checked(new URL(location, target).href);
        continue;
      }
      if (response.status === 404) return { found: false };
      if (!response.ok) throw new ArtifactFetchError(`${target.href} answered HTTP ${response.status}`);
      return { found: true, body: await this.body(response, target) };
    }
    throw new ArtifactFetchError(`${url} redirected more than ${MAX_REDIRECTS} times`);
  }

  private checked(url: string): URL {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new ArtifactFetchError(`not a valid URL: ${url}`);
    }
    if (target.protocol === 'file:') {
      if (!this.policy.allowFileUrls) throw new ArtifactFetchError(`file URLs are not allowed: ${url}`);
      return target;
    }
    const httpsOnly = this.policy.requireHttps;
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && !httpsOnly)) {
      throw new ArtifactFetchError(`${httpsOnly ? 'HTTPS is required' : 'unsupported scheme'}: ${target.href}`);
    }
    if (!this.hostAllowed(target)) throw new ArtifactFetchError(`host not allowed: ${target.host}`);
    return target;
  }

  private hostAllowed(target: URL): boolean {
    const allowed = this.policy.allowedHosts;
    if (!allowed) return true;
    const host = target.host.toLowerCase();
    const hostname = target.hostname.toLowerCase();
    return allowed.includes(host) || allowed.includes(hostname);
  }

  private async request(target: URL, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(target, { redirect: 'manual', signal });
    } catch (error) {
      throw new ArtifactFetchError(`${target.href} could not be fetched: ${describe(error)}`);
    }
  }

  private async body(response: Response, target: URL): Promise<Buffer> {
    try {
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      throw new ArtifactFetchError(`${target.href} could not be read: ${describe(error)}`);
    }
  }

  private async readLocal(target: URL): Promise<FetchOutcome> {
    try {
      return { found: true, body: await readFile(fileURLToPath(target)) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false };
      throw new ArtifactFetchError(`${target.href} could not be read`);
    }
  }
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
