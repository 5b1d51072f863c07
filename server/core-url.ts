import { isIP } from 'node:net';
import type { HttpConfig } from './config.js';

/**
 * The port a listener of this process is bound to, once it listens; undefined before, or when this
 * process runs no such listener. Port 0 (tests, benchmarks) binds a free port only at start-up,
 * after the services are built, so the values that depend on it are read on each use.
 */
export type BoundPort = (listener: 'core' | 'indicators') => number | undefined;

/**
 * The core the indicator and impact subgraphs name (DECISIONS sections 5 and 6): `CORE_BASE_URL`
 * when set, else this process's core facade at its bind address (loopback for a wildcard) and its
 * bound port. One rule for both subgraphs.
 */
export function coreBaseUrlOf(configured: string | null, http: HttpConfig, boundPort: BoundPort = () => undefined): () => string {
  return () => withoutTrailingSlash(configured ?? `http://${hostToReach(http.host)}:${boundPort('core') ?? http.ports.core}`);
}

/** A wildcard bind address is reached on loopback; an IPv6 literal needs brackets in a URL. */
function hostToReach(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::') return '127.0.0.1';
  return isIP(bindAddress) === 6 ? `[${bindAddress}]` : bindAddress;
}

function withoutTrailingSlash(href: string): string {
  return href.endsWith('/') ? href.slice(0, -1) : href;
}
