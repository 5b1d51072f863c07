import { isIP } from 'node:net';
import { pathToFileURL } from 'node:url';
import { boolean, integer, InvalidValue, optional, string, url } from '../../../kernel/config/env.js';
import type { Env, Parser } from '../../../kernel/config/env.js';
import { CORE_SERVICE_NAME } from '../../../kernel/core-service.js';
import { projectPath } from '../../../kernel/project.js';
import { DEFAULT_MODEL_VERSION, MODEL_FAMILY } from './compute-request.js';
import { VERSION_PLACEHOLDER } from './artifact-urls.js';

/** DECISIONS section 5; every value is overridable by the variable named. */
export interface IndicatorConfig {
  /**
   * `CORE_BASE_URL` (alias `HEX_CORE_BASE_URL`); default: this process's core facade, at its bind
   * address (loopback when it binds every interface) and its bound port (see `BoundPort`).
   */
  coreBaseUrl: string;
  /** `ARTIFACT_BASE_URL_TEMPLATE` with `{version}`; default: the bundled sample under `examples/`. */
  artifactBaseUrlTemplate: string;
  /** `HTTP_TIMEOUT_SECS` (15): bound on every outbound call, core and artifact host alike. */
  httpTimeoutSecs: number;
  /** `INDICATORS_SKIP_VALIDATION` (false): the only way to get `validation_skipped`. */
  skipValidation: boolean;
  /**
   * `INDICATORS_ARTIFACT_FRESHNESS_SECS` (60): a fetched calculation artifact is reused without any
   * request for this long, then revalidated with its ETag (a 304 costs no body and no parsing).
   */
  artifactFreshnessSecs: number;
  /**
   * `INDICATORS_CORE_SERVICE_NAME` (`CORE_SERVICE_NAME`): `validation.source`, the core's `service`
   * name as its `GET /admin/version` reports it. Configured rather than fetched: that endpoint needs
   * authentication and would cost a call, for a value that only changes with the deployment.
   */
  coreServiceName: string;
  /** `SERVER_HOST` (alias `BIND_ADDRESS`) and `INDICATORS_PORT` (the bound port once listening), reported by `/health`. */
  bindAddress: string;
  port: number;
}

/**
 * The port a listener of this process is bound to, once it listens; undefined before, or when this
 * process runs no such listener. Port 0 (tests, benchmarks) binds a free port only at start-up,
 * after the services are built, so the values that depend on it are read on each use.
 */
export type BoundPort = (listener: 'core' | 'indicators') => number | undefined;

const DEFAULT_CORE_PORT = 8080;
const DEFAULT_INDICATORS_PORT = 8081;
const PORT = integer({ min: 0, max: 65535 });

export function readIndicatorConfig(env: Env, boundPort: BoundPort = () => undefined): IndicatorConfig {
  const corePort = optional(env, ['CORE_PORT', 'SERVER_PORT'], PORT, DEFAULT_CORE_PORT);
  const coreBaseUrl = optional(env, ['CORE_BASE_URL', 'HEX_CORE_BASE_URL'], url());
  const bindAddress = optional(env, ['SERVER_HOST', 'BIND_ADDRESS'], string, '0.0.0.0');
  const port = optional(env, 'INDICATORS_PORT', PORT, DEFAULT_INDICATORS_PORT);
  return {
    get coreBaseUrl() {
      return withoutTrailingSlash(coreBaseUrl?.href ?? `http://${hostToReach(bindAddress)}:${boundPort('core') ?? corePort}`);
    },
    artifactBaseUrlTemplate: optional(env, 'ARTIFACT_BASE_URL_TEMPLATE', artifactTemplate) ?? bundledSampleTemplate(),
    httpTimeoutSecs: optional(env, 'HTTP_TIMEOUT_SECS', integer({ min: 1 }), 15),
    skipValidation: optional(env, 'INDICATORS_SKIP_VALIDATION', boolean, false),
    artifactFreshnessSecs: optional(env, 'INDICATORS_ARTIFACT_FRESHNESS_SECS', integer({ min: 0 }), 60),
    coreServiceName: optional(env, 'INDICATORS_CORE_SERVICE_NAME', string, CORE_SERVICE_NAME),
    bindAddress,
    get port() {
      return boundPort('indicators') ?? port;
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
