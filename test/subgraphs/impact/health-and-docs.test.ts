import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../../kernel/config/env.js';
import { SWAGGER_UI_ASSETS, swaggerUiHtml } from '../../../rest-facade/impact/swagger-ui.js';
import { readSystemConfig } from '../../../server/config.js';
import { impactConfig } from '../../../server/impact-config.js';
import { coreBaseUrlOf } from '../../../server/core-url.js';

/** The impact service's configuration as the process builds it at start-up, from `env` alone. */
const readImpactConfig = (env: Record<string, string>) => {
  const config = readSystemConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', REGISTRY_CATALOG_JSON: '[]', ...env });
  const { backgroundProjectDir, coreBaseUrl } = impactConfig(config.impact!, coreBaseUrlOf(config.coreBaseUrl, config.http));
  return { backgroundProjectDir, coreBaseUrl };
};
import { ImpactService } from '../../../subgraphs/impact/domain/impact-service.js';
import type { BackgroundProjectReader } from '../../../subgraphs/impact/domain/impact-service.js';

describe('impact configuration', () => {
  test('defaults: the project under ./data, the core facade of this process', () => {
    expect(readImpactConfig({})).toEqual({
      backgroundProjectDir: path.resolve('data/brightway-project'),
      coreBaseUrl: 'http://127.0.0.1:8080',
    });
  });

  test('reads BACKGROUND_PROJECT_DIR, CORE_BASE_URL and its alias, and CORE_PORT for the default', () => {
    expect(readImpactConfig({ BACKGROUND_PROJECT_DIR: '/srv/bw/p', CORE_BASE_URL: 'https://core.example/api/' })).toEqual({
      backgroundProjectDir: '/srv/bw/p',
      coreBaseUrl: 'https://core.example/api',
    });
    expect(readImpactConfig({ HEX_CORE_BASE_URL: 'http://core:9000' }).coreBaseUrl).toBe('http://core:9000');
    expect(readImpactConfig({ SERVER_PORT: '9090' }).coreBaseUrl).toBe('http://127.0.0.1:9090');
  });

  test('an invalid value fails naming the variable', () => {
    expect(() => readImpactConfig({ BACKGROUND_PROJECT_DIR: ' ' })).toThrow(ConfigError);
    expect(() => readImpactConfig({ BACKGROUND_PROJECT_DIR: ' ' })).toThrow(/^BACKGROUND_PROJECT_DIR /);
    expect(() => readImpactConfig({ CORE_BASE_URL: 'core:8080/x' })).toThrow(/^CORE_BASE_URL /);
  });
});

describe('health', () => {
  test('reports doc 03 fields and never opens the background project', () => {
    const untouchable: BackgroundProjectReader = {
      read: () => Promise.reject(new Error('health must not open the project')),
      engineVersions: () => {
        throw new Error('health must not open the project');
      },
    };
    const service = new ImpactService({ backgroundProjectDir: '/srv/bw/p', coreBaseUrl: 'http://core:8080' }, untouchable);
    expect(service.health()).toEqual({
      status: 'ok',
      service: 'impact-calculation-service',
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      core_base_url: 'http://core:8080',
      background_project_dir: '/srv/bw/p',
    });
  });
});

describe('Swagger UI page', () => {
  const html = swaggerUiHtml({ title: 'Impact <API>' });

  test('loads every script and style from the served package, nothing from the internet', () => {
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(references.length).toBeGreaterThanOrEqual(5);
    for (const reference of references) {
      expect(reference.startsWith('/docs/assets/')).toBe(true);
      const file = reference.slice('/docs/assets/'.length);
      expect(SWAGGER_UI_ASSETS.files).toContain(file);
    }
    expect(html).not.toMatch(/https?:\/\//);
  });

  test('the assets exist in the installed swagger-ui-dist', () => {
    for (const file of SWAGGER_UI_ASSETS.files) expect(existsSync(path.join(SWAGGER_UI_ASSETS.directory, file))).toBe(true);
    expect(readFileSync(path.join(SWAGGER_UI_ASSETS.directory, 'swagger-ui-bundle.js'), 'utf8')).toContain('SwaggerUIBundle');
  });

  test('points at /openapi.json, escapes the title and keeps the inline script unbreakable', () => {
    expect(html).toContain('"url":"/openapi.json"');
    expect(html).toContain('<title>Impact &#60;API&#62;</title>');
    const custom = swaggerUiHtml({ title: 't', openapiUrl: '/x</script><b>', assetsPath: '/static' });
    expect(custom).toContain('"url":"/x\\u003c/script>\\u003cb>"');
    expect(custom).toContain('href="/static/swagger-ui.css"');
  });
});
