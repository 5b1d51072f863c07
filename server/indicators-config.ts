import { pathToFileURL } from 'node:url';
import { type Env, InvalidValue, type Parser, boolean, integer, optional, string, url } from '../kernel/config/env.js';
import { CORE_SERVICE_NAME } from '../kernel/service-identities.js';
import { projectPath } from '../kernel/project.js';
import { VERSION_PLACEHOLDER } from '../subgraphs/indicators/domain/artifact-urls.js';
import { DEFAULT_MODEL_VERSION, MODEL_FAMILY } from '../subgraphs/indicators/domain/compute-request.js';
import type { IndicatorConfig } from '../subgraphs/indicators/domain/indicator-config.js';
import type { HttpConfig } from './config.js';
import type { BoundPort } from './core-url.js';

/** The indicator service's variables (DECISIONS section 5), read with everything else at start-up. */
export type IndicatorSettings = Omit<IndicatorConfig, 'coreBaseUrl' | 'bindAddress' | 'port'>;

export function readIndicatorSettings(env: Env): IndicatorSettings {
  return {
    artifactBaseUrlTemplate: optional(env, 'ARTIFACT_BASE_URL_TEMPLATE', artifactTemplate) ?? bundledSampleTemplate(),
    httpTimeoutSecs: optional(env, 'HTTP_TIMEOUT_SECS', integer({ min: 1 }), 15),
    skipValidation: optional(env, 'INDICATORS_SKIP_VALIDATION', boolean, false),
    artifactFreshnessSecs: optional(env, 'INDICATORS_ARTIFACT_FRESHNESS_SECS', integer({ min: 0 }), 60),
    coreServiceName: optional(env, 'INDICATORS_CORE_SERVICE_NAME', string, CORE_SERVICE_NAME),
  };
}

/** The domain's configuration: the core's URL (server/core-url.ts) and `/health`'s port are read on each use. */
export function indicatorConfig(settings: IndicatorSettings, http: HttpConfig, coreBaseUrl: () => string, boundPort: BoundPort = () => undefined): IndicatorConfig {
  return {
    ...settings,
    get coreBaseUrl() {
      return coreBaseUrl();
    },
    bindAddress: http.host,
    get port() {
      return boundPort('indicators') ?? http.ports.indicators;
    },
  };
}

/** Must hold `{version}` and, once filled in, be an http(s) or file URL. */
const artifactTemplate: Parser<string> = (value) => {
  if (!value.includes(VERSION_PLACEHOLDER)) throw new InvalidValue(`must contain the placeholder ${VERSION_PLACEHOLDER}`);
  url(['http:', 'https:', 'file:'])(value.replaceAll(VERSION_PLACEHOLDER, DEFAULT_MODEL_VERSION));
  return value;
};

/** The local profile's sample: `examples/models/<family>/<version>/` at the project root. */
function bundledSampleTemplate(): string {
  return `${pathToFileURL(projectPath('examples', 'models', MODEL_FAMILY)).href}/${VERSION_PLACEHOLDER}/`;
}
