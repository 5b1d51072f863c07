import { isIP } from 'node:net';
import { pathToFileURL } from 'node:url';
import { type Env, InvalidValue, type Parser, boolean, integer, optional, string, url } from '../kernel/config/env.js';
import { CORE_SERVICE_NAME } from '../kernel/service-identities.js';
import { projectPath } from '../kernel/project.js';
import { VERSION_PLACEHOLDER } from '../subgraphs/indicators/domain/artifact-urls.js';
import { DEFAULT_MODEL_VERSION, MODEL_FAMILY } from '../subgraphs/indicators/domain/compute-request.js';
import type { IndicatorConfig } from '../subgraphs/indicators/domain/indicator-config.js';
import type { HttpConfig } from './config.js';

/** The indicator service's variables (DECISIONS section 5), read with everything else at start-up. */
export interface IndicatorSettings {
  /** `CORE_BASE_URL` (alias `HEX_CORE_BASE_URL`); null: this process's core facade. */
  coreBaseUrl: string | null;
  artifactBaseUrlTemplate: string;
  httpTimeoutSecs: number;
  skipValidation: boolean;
  artifactFreshnessSecs: number;
  coreServiceName: string;
}

export function readIndicatorSettings(env: Env): IndicatorSettings {
  return {
    coreBaseUrl: optional(env, ['CORE_BASE_URL', 'HEX_CORE_BASE_URL'], url())?.href ?? null,
    artifactBaseUrlTemplate: optional(env, 'ARTIFACT_BASE_URL_TEMPLATE', artifactTemplate) ?? bundledSampleTemplate(),
    httpTimeoutSecs: optional(env, 'HTTP_TIMEOUT_SECS', integer({ min: 1 }), 15),
    skipValidation: optional(env, 'INDICATORS_SKIP_VALIDATION', boolean, false),
    artifactFreshnessSecs: optional(env, 'INDICATORS_ARTIFACT_FRESHNESS_SECS', integer({ min: 0 }), 60),
    coreServiceName: optional(env, 'INDICATORS_CORE_SERVICE_NAME', string, CORE_SERVICE_NAME),
  };
}

/**
 * The port a listener of this process is bound to, once it listens; undefined before, or when this
 * process runs no such listener. Port 0 (tests, benchmarks) binds a free port only at start-up,
 * after the services are built, so the values that depend on it are read on each use.
 */
export type BoundPort = (listener: 'core' | 'indicators') => number | undefined;

/**
 * The domain's configuration: the default core URL is this process's core facade at its bind
 * address (loopback for a wildcard) and its bound port; `/health` reports the bound port too.
 */
export function indicatorConfig(settings: IndicatorSettings, http: HttpConfig, boundPort: BoundPort = () => undefined): IndicatorConfig {
  const { coreBaseUrl, ...fixed } = settings;
  return {
    ...fixed,
    get coreBaseUrl() {
      return withoutTrailingSlash(coreBaseUrl ?? `http://${hostToReach(http.host)}:${boundPort('core') ?? http.ports.core}`);
    },
    bindAddress: http.host,
    get port() {
      return boundPort('indicators') ?? http.ports.indicators;
    },
  };
}

/** A wildcard bind address is reached on loopback; an IPv6 literal needs brackets in a URL. */
function hostToReach(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::') return '127.0.0.1';
  return isIP(bindAddress) === 6 ? `[${bindAddress}]` : bindAddress;
}

/** Must hold `{version}` and, once filled in, be an http(s) or file URL. */
const artifactTemplate: Parser<string> = (value) => {
  if (!value.includes(VERSION_PLACEHOLDER)) throw new InvalidValue(`must contain the placeholder ${VERSION_PLACEHOLDER}`);
  url(['http:', 'https:', 'file:'])(value.replaceAll(VERSION_PLACEHOLDER, DEFAULT_MODEL_VERSION));
  return value;
};

function withoutTrailingSlash(href: string): string {
  return href.endsWith('/') ? href.slice(0, -1) : href;
}

/** The local profile's sample: `examples/models/<family>/<version>/` at the project root. */
function bundledSampleTemplate(): string {
  return `${pathToFileURL(projectPath('examples', 'models', MODEL_FAMILY)).href}/${VERSION_PLACEHOLDER}/`;
}
