import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { readSystemConfig } from '../server/config.js';
import { type RunningSystem, startSystem } from '../server/system.js';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../kernel/project.js';
import { FREE_LOOPBACK_PORTS } from '../test/support/server-process.js';

export const SHARED_DATA = path.resolve(PROJECT_ROOT, '..', 'shared', 'data');
export const PUBLISHED_0_0_4 = path.join(SHARED_DATA, 're-indicators-specification', '0.0.4');

export function sharedDataPresent(): boolean {
  return existsSync(PUBLISHED_0_0_4);
}

/** The shared assessment answers completed into a whole Assessment (the fields it also requires). */
export function sharedAssessment(): Record<string, unknown> {
  const answers = JSON.parse(readFileSync(path.join(SHARED_DATA, 're-indicators-calculation', 'payload-recycle-battery-0.0.4.json'), 'utf8'));
  return {
    id: 'assessment-bench-1',
    timestamp: '2025-06-01T12:00:00Z',
    model_version: '0.0.4',
    product_info: { product_category: 'Battery', manufacturer: 'ACME' },
    ...answers,
  };
}

/** A catalog entry for the published 0.0.4 artifacts, read in place through file URLs. */
export function publishedCatalogEntry(rootClass?: string) {
  const file = (name: string) => pathToFileURL(path.join(PUBLISHED_0_0_4, name)).href;
  return {
    model: 're-indicators-specification',
    version: '0.0.4',
    schema_url: file('schema.json'),
    shacl_url: file('shacl.ttl'),
    owl_url: file('model.ttl'),
    ...(rootClass ? { root_class: rootClass } : {}),
  };
}

/** Every listener on a free loopback port, no authentication: how every benchmark starts the system. */
export const LOCAL_BENCH_ENV: Record<string, string> = {
  AUTH_MODE: 'none',
  AUTH_ALLOW_INSECURE_NONE: 'true',
  ...FREE_LOOPBACK_PORTS,
};

/**
 * The real system in this process on free loopback ports, no authentication, silent logs, an
 * embedded SQLite store under /tmp; `env` adds or overrides.
 */
export async function startBenchSystem(env: Record<string, string>): Promise<RunningSystem> {
  return startSystem(
    readSystemConfig({
      ...LOCAL_BENCH_ENV,
      REGISTRY_CATALOG_JSON: '[]',
      REGISTRY_ALLOW_FILE_URLS: 'true',
      DATABASE_URL: `file:${mkdtempSync(path.join(tmpdir(), 'cerise-bench-'))}/records.db`,
      LOG_LEVEL: 'silent',
      ...env,
    }),
    { logger: pino({ level: 'silent' }) },
  );
}

/** The shared compute request: a real REcycle_Battery assessment for 0.0.4. */
export function computeRequest(): unknown {
  return JSON.parse(readFileSync(path.join(SHARED_DATA, 're-indicators-calculation', 'compute-request-recycle-battery.json'), 'utf8'));
}

/**
 * Serves the published `calculation.json` as `/<version>/calculation.json` for any version; the
 * environment points the indicator service at it (`ARTIFACT_BASE_URL_TEMPLATE`). For a version
 * other than 0.0.4 it is the same document with its `model_version` set to that version (the
 * indicator service refuses an artifact of another version): the gateway bench's stand-in versions
 * (`benchVersions`) have 0.0.4's questionnaire. `folder` holds the `calculation.json` served (the
 * published one by default).
 */
export async function calculationArtifactHost(folder = PUBLISHED_0_0_4): Promise<{ server: Server; env: Record<string, string>; close(): void }> {
  const calculation = readFileSync(path.join(folder, 'calculation.json'));
  const perVersion = new Map<string, Buffer>([['0.0.4', calculation]]);
  const server = createServer((req, res) => {
    const version = /^\/([^/]+)\/calculation\.json$/.exec(req.url ?? '')?.[1];
    if (version === undefined) return res.writeHead(404).end();
    const name = decodeURIComponent(version);
    let body = perVersion.get(name);
    if (body === undefined) {
      body = Buffer.from(JSON.stringify({ ...(JSON.parse(calculation.toString('utf8')) as object), model_version: name }));
      perVersion.set(name, body);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, env: { ARTIFACT_BASE_URL_TEMPLATE: `${url}/{version}/` }, close: () => server.close() };
}
