import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVER_ENTRY } from '../support/server-process.js';

/** Runs the built entry point the way a deployment does (`npm run serve`), with only this environment. */
function serve(env: Record<string, string>) {
  return spawnSync(process.execPath, [SERVER_ENTRY], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 20000,
  });
}

const base = { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', REGISTRY_CATALOG_JSON: '[]', CORE_PORT: '0', GATEWAY_PORT: '0' };

describe('a bad configuration fails startup with one line naming the variable, exit 1', () => {
  test.each([
    ['CORE_PORT', { CORE_PORT: 'eighty' }],
    ['SERVER_REQUEST_MAX_BYTES', { SERVER_REQUEST_MAX_BYTES: '-5' }],
    ['AUTH_MODE', { AUTH_MODE: 'magic' }],
    ['AUTH_ALLOW_INSECURE_NONE', { AUTH_ALLOW_INSECURE_NONE: 'yes' }],
    ['AUTH_JWKS_URL', { AUTH_MODE: 'jwt_jwks' }],
    ['REGISTRY_CATALOG_JSON', { REGISTRY_CATALOG_FILE: '/tmp/catalog.json' }],
    ['REGISTRY_ARTIFACT_MAX_BYTES', { REGISTRY_ARTIFACT_MAX_BYTES: '16MB' }],
    ['REGISTRY_REFRESH_MIN_INTERVAL_SECS', { REGISTRY_REFRESH_MIN_INTERVAL_SECS: '-1' }],
    ['REGISTRY_REFRESH_TIMEOUT_SECS', { REGISTRY_REFRESH_TIMEOUT_SECS: '0' }],
    ['SERVER_MAX_CONNECTIONS_PER_CLIENT', { SERVER_MAX_CONNECTIONS_PER_CLIENT: '0' }],
    ['SERVER_PROXY_ADDRESSES', { SERVER_PROXY_ADDRESSES: '10.0.0.0/40' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['DATABASE_POOL_SIZE', { DATABASE_POOL_SIZE: '0' }],
    ['DATABASE_ACQUIRE_TIMEOUT_MS', { DATABASE_ACQUIRE_TIMEOUT_MS: '2s' }],
    ['DATABASE_STATEMENT_TIMEOUT_MS', { DATABASE_STATEMENT_TIMEOUT_MS: '-1' }],
    ['DATABASE_PING_TIMEOUT_MS', { DATABASE_PING_TIMEOUT_MS: '' }],
    ['METRICS_ENABLED', { METRICS_ENABLED: '1' }],
    ['WORKERS', { WORKERS: '0' }],
    ['HEAP_GROWTH_PERCENT', { HEAP_GROWTH_PERCENT: '400' }],
    ['GATEWAY_ANSWER_CACHE_MB', { GATEWAY_ANSWER_CACHE_MB: '-1' }],
    ['PROCESS_MAX_ANSWER_MB', { PROCESS_MAX_ANSWER_MB: '64MB' }],
    ['WORKER_MAX_RSS_MB', { WORKER_MAX_RSS_MB: '-1' }],
    // The subgraphs' own settings are read in the same phase, before anything starts.
    ['INDICATORS_ARTIFACT_FRESHNESS_SECS', { INDICATORS_ARTIFACT_FRESHNESS_SECS: 'soon' }],
    ['ARTIFACT_BASE_URL_TEMPLATE', { ARTIFACT_BASE_URL_TEMPLATE: 'https://models.example/no-placeholder/' }],
    ['BACKGROUND_PROJECT_DIR', { BACKGROUND_PROJECT_DIR: ' ' }],
    ['CORE_BASE_URL', { HEX_CORE_BASE_URL: 'core:8080/x' }],
  ])('%s', (variable, override) => {
    const result = serve({ ...base, ...override });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });
});

test('a bad subgraph variable stops the process before the records database is created or migrated', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'startup-config-'));
  try {
    const database = path.join(dir, 'records.db');
    const result = serve({ ...base, DATABASE_URL: `file:${database}`, INDICATORS_ARTIFACT_FRESHNESS_SECS: 'soon' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('INDICATORS_ARTIFACT_FRESHNESS_SECS');
    expect(existsSync(database)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
