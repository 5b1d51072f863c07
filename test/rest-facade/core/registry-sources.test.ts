import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ArtifactHost } from '../../support/artifact-host.js';
import { miniModelHost, VALID_WIDGET } from '../../support/mini-model.js';
import { spawnServer, SERVER_ENTRY } from '../../support/server-process.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';

/**
 * Where the catalog comes from (DECISIONS section 3, "Registry"): exactly one of
 * REGISTRY_CATALOG_JSON, REGISTRY_CATALOG_FILE, REGISTRY_CATALOG_URL.
 */

let host: ArtifactHost;
let hostEnv: Record<string, string>;
let miniEntries: unknown[];
let dir: string;
let catalogFile: string;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  miniEntries = mini.catalog;
  // The host's policy without its catalog URL: the catalog comes from a file here.
  const { REGISTRY_CATALOG_URL: _url, ...env } = mini.env;
  hostEnv = env;
  dir = mkdtempSync(path.join(tmpdir(), 'cerise-catalog-'));
  catalogFile = path.join(dir, 'catalog.json');
});
afterAll(async () => {
  await host?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('REGISTRY_CATALOG_FILE', () => {
  let sut: TestSystem;
  let core: string;

  beforeAll(async () => {
    // The `{"models":[…]}` form of the catalog document.
    writeFileSync(catalogFile, JSON.stringify({ models: [...miniEntries, { model: 'bare', version: '0.1' }] }));
    sut = await startInProcessSystem({ ...NO_AUTH, ...hostEnv, REGISTRY_CATALOG_FILE: catalogFile });
    core = sut.url('core');
  });
  afterAll(async () => {
    await sut?.stop();
  });

  test('the catalog file is loaded at start-up: models listed, ready, artifacts served, validation works', async () => {
    expect((await call(core, 'GET', '/models')).json).toEqual({
      models: [
        { id: 'bare', version: '0.1' },
        { id: 'mini', version: '1.0' },
      ],
    });
    const ready = await call(core, 'GET', '/admin/ready');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', models_available: 2, store: 'ok' });
    expect((await call(core, 'GET', '/models/mini/versions/1.0/shacl')).status).toBe(200);
    const report = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } });
    expect(report.status).toBe(200);
    expect(report.json.passed).toBe(true);
  });

  test('a refresh re-reads the file', async () => {
    writeFileSync(catalogFile, JSON.stringify(miniEntries));
    const refresh = await call(core, 'POST', '/admin/registry/refresh');
    expect(refresh.status).toBe(200);
    expect(refresh.json).toEqual({ refreshed_at: expect.any(String), models_found: 1, errors: [] });
    expect((await call(core, 'GET', '/models')).json).toEqual({ models: [{ id: 'mini', version: '1.0' }] });
  });

  test('a file that cannot be read any more: refresh is 502 REGISTRY_ERROR and the previous index stays', async () => {
    unlinkSync(catalogFile);
    const refresh = await call(core, 'POST', '/admin/registry/refresh');
    expect(refresh.status).toBe(502);
    expect(refresh.json).toEqual({ code: 'REGISTRY_ERROR', message: expect.stringContaining('catalog'), details: null });
    expect((await call(core, 'GET', '/models')).json).toEqual({ models: [{ id: 'mini', version: '1.0' }] });
  });
});

describe('the built server (`npm run serve`)', () => {
  test('reads REGISTRY_CATALOG_FILE from its environment', async () => {
    const file = path.join(dir, 'served-catalog.json');
    writeFileSync(file, JSON.stringify(miniEntries));
    const server = await spawnServer({ ...NO_AUTH, ...hostEnv, REGISTRY_CATALOG_FILE: file, DATABASE_URL: `file:${path.join(dir, 'served.db')}` });
    try {
      const models = await call(server.url('core'), 'GET', '/models');
      expect(models.status).toBe(200);
      expect(models.json).toEqual({ models: [{ id: 'mini', version: '1.0' }] });
      expect((await call(server.url('core'), 'GET', '/admin/ready')).status).toBe(200);
    } finally {
      await server.stop();
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  test('no catalog source at all fails startup with one line naming the three variables, exit 1', () => {
    const result = spawnSync(process.execPath, [SERVER_ENTRY], {
      // Everything else is valid: only the catalog source is missing.
      env: { PATH: process.env.PATH ?? '', ...NO_AUTH, CORE_PORT: '0', GATEWAY_PORT: '0', DATABASE_URL: `file:${path.join(dir, 'never.db')}` },
      encoding: 'utf8',
      timeout: 20000,
    });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    for (const variable of ['REGISTRY_CATALOG_JSON', 'REGISTRY_CATALOG_FILE', 'REGISTRY_CATALOG_URL']) expect(lines[0]).toContain(variable);
    expect(result.stdout).not.toMatch(/"msg":"started"/);
  });
});
