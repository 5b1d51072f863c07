import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../../../kernel/project.js';
import { ConfigError } from '../../../kernel/config/env.js';
import { createIndicatorService } from '../../../subgraphs/indicators/create-indicator-service.js';
import { readSystemConfig } from '../../../server/config.js';
import { indicatorConfig } from '../../../server/indicators-config.js';
import { type BoundPort, coreBaseUrlOf } from '../../../server/core-url.js';

/** The indicator service's configuration as the process reads it at start-up, from `env` alone. */
function readIndicatorConfig(env: Record<string, string>, boundPort?: BoundPort) {
  const config = readSystemConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', REGISTRY_CATALOG_JSON: '[]', ...env });
  return indicatorConfig(config.indicators!, config.http, coreBaseUrlOf(config.coreBaseUrl, config.http, boundPort), boundPort);
}

const PROJECT_ROOT = projectPath();

describe('indicator configuration', () => {
  test('defaults: loopback core facade, bundled sample, 15 s, validation on', () => {
    expect(readIndicatorConfig({})).toEqual({
      coreBaseUrl: 'http://127.0.0.1:8080',
      artifactBaseUrlTemplate: `${pathToFileURL(path.join(PROJECT_ROOT, 'examples/models/re-indicators-specification')).href}/{version}/`,
      httpTimeoutSecs: 15,
      skipValidation: false,
      artifactFreshnessSecs: 60,
      coreServiceName: 'hex-core-service',
      bindAddress: '0.0.0.0',
      port: 8081,
    });
    expect(readIndicatorConfig({ CORE_PORT: '9090' }).coreBaseUrl).toBe('http://127.0.0.1:9090');
  });

  test('the default core URL and the port follow the bound ports, read on each use', () => {
    const bound: Partial<Record<'core' | 'indicators', number>> = {};
    const config = readIndicatorConfig({ CORE_PORT: '0', INDICATORS_PORT: '0', SERVER_HOST: '::1' }, (listener) => bound[listener]);
    expect([config.coreBaseUrl, config.port]).toEqual(['http://[::1]:0', 0]);
    Object.assign(bound, { core: 41001, indicators: 41002 });
    expect([config.coreBaseUrl, config.port]).toEqual(['http://[::1]:41001', 41002]);
    expect(readIndicatorConfig({ CORE_BASE_URL: 'http://core:9000' }, () => 41001).coreBaseUrl).toBe('http://core:9000');
  });

  test('variables and aliases', () => {
    const config = readIndicatorConfig({
      HEX_CORE_BASE_URL: 'https://core.example.org/api/',
      ARTIFACT_BASE_URL_TEMPLATE: 'https://models.example.org/re/{version}',
      HTTP_TIMEOUT_SECS: '5',
      INDICATORS_SKIP_VALIDATION: 'true',
      INDICATORS_ARTIFACT_FRESHNESS_SECS: '0',
      INDICATORS_CORE_SERVICE_NAME: 'our-core',
      BIND_ADDRESS: '127.0.0.1',
      INDICATORS_PORT: '9081',
    });
    expect(config).toEqual({
      coreBaseUrl: 'https://core.example.org/api',
      artifactBaseUrlTemplate: 'https://models.example.org/re/{version}',
      httpTimeoutSecs: 5,
      skipValidation: true,
      artifactFreshnessSecs: 0,
      coreServiceName: 'our-core',
      bindAddress: '127.0.0.1',
      port: 9081,
    });
  });

  test.each([
    [{ CORE_BASE_URL: 'not a url' }, 'CORE_BASE_URL'],
    [{ CORE_BASE_URL: 'http://a', HEX_CORE_BASE_URL: 'http://b' }, 'CORE_BASE_URL'],
    [{ ARTIFACT_BASE_URL_TEMPLATE: 'https://models.example.org/0.0.4/' }, 'ARTIFACT_BASE_URL_TEMPLATE'],
    [{ ARTIFACT_BASE_URL_TEMPLATE: 'ftp://models/{version}/' }, 'ARTIFACT_BASE_URL_TEMPLATE'],
    [{ HTTP_TIMEOUT_SECS: '0' }, 'HTTP_TIMEOUT_SECS'],
    [{ HTTP_TIMEOUT_SECS: 'fifteen' }, 'HTTP_TIMEOUT_SECS'],
    [{ INDICATORS_SKIP_VALIDATION: 'yes' }, 'INDICATORS_SKIP_VALIDATION'],
    [{ INDICATORS_PORT: '70000' }, 'INDICATORS_PORT'],
  ])('%j fails naming %s', (env, variable) => {
    expect(() => readIndicatorConfig(env)).toThrow(ConfigError);
    expect(() => readIndicatorConfig(env)).toThrow(new RegExp(`^${variable}`));
  });

  test('health reports exactly the fields of doc 02', () => {
    const service = createIndicatorService(readIndicatorConfig({ CORE_BASE_URL: 'http://core:8080', ARTIFACT_BASE_URL_TEMPLATE: 'https://models.example.org/re/{version}', HTTP_TIMEOUT_SECS: '7' }));
    expect(service.health()).toStrictEqual({
      status: 'ok',
      model_family: 're-indicators-specification',
      validation_basis: 'shacl',
      default_testing_version: '0.0.4',
      artifact_base_url_template: 'https://models.example.org/re/{version}',
      core_base_url: 'http://core:8080',
      http_timeout_secs: 7,
      bind_address: '0.0.0.0',
      port: 8081,
      calculation_artifact_url_template: 'https://models.example.org/re/{version}/calculation.json',
    });
  });
});
