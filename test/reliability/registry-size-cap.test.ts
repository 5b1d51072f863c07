import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ArtifactHost } from '../support/artifact-host.js';
import { eventually } from '../support/load-loop.js';
import { miniArtifact, miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue: artifact bodies had no size cap (a 300 MB stream took the process from 158 to 417 MB of
 * RSS). REGISTRY_ARTIFACT_MAX_BYTES caps every catalog and artifact body: a Content-Length over it
 * is refused before the body is read, and a body that passes it is dropped the moment it does, so
 * an endless body costs the cap, not the body. The artifact fails like any failed fetch. A fetch's
 * cap does not depend on the process layout: the systems run in the jest process, their lines kept.
 */
const MAX_BYTES = 65536;
const CAP_MESSAGE = `is larger than REGISTRY_ARTIFACT_MAX_BYTES (${MAX_BYTES} bytes)`;

let host: ArtifactHost;
let sut: TestSystem;
let core: string;
let miniEntries: unknown[];

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  miniEntries = mini.catalog;
  // `big` 1.0: an endless schema, shapes that declare a gigabyte; neither is ever held whole by the host.
  host.serve('/big/1.0/schema.json', { stream: {} });
  host.serve('/big/1.0/shacl.ttl', { stream: { contentLength: 2 ** 30 } });
  host.serve('/catalog.json', JSON.stringify([...miniEntries, { model: 'big', version: '1.0', base_url: `${host.url}/big/1.0/` }]));
  sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env, REGISTRY_ARTIFACT_MAX_BYTES: String(MAX_BYTES) }, { logs: true });
  core = sut.url('core');
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
});

const bigErrors = () => [
  { model: 'big', version: '1.0', artifact: 'schema', message: `${host.url}/big/1.0/schema.json ${CAP_MESSAGE}: reading stopped there` },
  { model: 'big', version: '1.0', artifact: 'shacl', message: `${host.url}/big/1.0/shacl.ttl ${CAP_MESSAGE}: its Content-Length is ${2 ** 30}` },
];

test('oversized artifacts fail with a clear error in registry.errors and the log; reading them stopped', async () => {
  const status = await call(core, 'GET', '/admin/status');
  expect(status.json.registry.errors).toEqual(bigErrors());
  expect(sut.logs).toEqual(expect.arrayContaining(bigErrors().map((registryError) => expect.objectContaining({ msg: 'registry: artifact problem', registryError }))));
  // The host saw both answers abandoned by the client, not read to their end.
  expect(await eventually(() => host.cut.has('/big/1.0/schema.json') && host.cut.has('/big/1.0/shacl.ttl'))).toBe(true);
});

test('the oversized artifact answers 502 REGISTRY_ERROR naming the cap; the other models are unaffected', async () => {
  const schema = await call(core, 'GET', '/models/big/versions/1.0/schema');
  expect(schema.status).toBe(502);
  expect(schema.json).toEqual({ code: 'REGISTRY_ERROR', message: bigErrors()[0]!.message, details: { model: 'big', version: '1.0', artifact: 'schema' } });
  const validated = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } });
  expect(validated.status).toBe(200);
  expect(validated.json.passed).toBe(true);
});

test('a refresh reports and logs them again', async () => {
  const logged = sut.logs.length;
  const refresh = await call(core, 'POST', '/admin/registry/refresh');
  expect(refresh.status).toBe(200);
  expect(refresh.json.errors).toEqual(bigErrors());
  expect(sut.logs.slice(logged)).toEqual(expect.arrayContaining(bigErrors().map((registryError) => expect.objectContaining({ msg: 'registry: artifact problem', registryError }))));
});

test('an artifact that grows past the cap: the version keeps its working build', async () => {
  host.serve('/mini/1.0/owl.ttl', { stream: {} });
  try {
    const refresh = await call(core, 'POST', '/admin/registry/refresh');
    expect(refresh.json.errors).toContainEqual({
      model: 'mini',
      version: '1.0',
      artifact: 'owl',
      message: `${host.url}/mini/1.0/owl.ttl ${CAP_MESSAGE}: reading stopped there; the previously loaded artifacts stay in use`,
    });
    expect((await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } })).json.passed).toBe(true);
  } finally {
    host.serve('/mini/1.0/owl.ttl', miniArtifact('owl.ttl'));
  }
});

test('a catalog over the cap: the refresh is 502 REGISTRY_ERROR and the previous index stays', async () => {
  const catalog = host.files.get('/catalog.json')!;
  host.serve('/catalog.json', { stream: {} });
  try {
    const refresh = await call(core, 'POST', '/admin/registry/refresh');
    expect(refresh.status).toBe(502);
    expect(refresh.json).toEqual({ code: 'REGISTRY_ERROR', message: `catalog could not be loaded: ${host.url}/catalog.json ${CAP_MESSAGE}: reading stopped there`, details: null });
    expect((await call(core, 'GET', '/models')).json.models).toHaveLength(2);
  } finally {
    host.files.set('/catalog.json', catalog);
  }
});

test('a catalog file over the cap (REGISTRY_CATALOG_FILE): logged at start-up, not ready', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'catalog-cap-'));
  try {
    const file = path.join(dir, 'catalog.json');
    writeFileSync(file, JSON.stringify(miniEntries).padEnd(MAX_BYTES + 1));
    const fileSystem = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_FILE: file, REGISTRY_ARTIFACT_MAX_BYTES: String(MAX_BYTES) }, { logs: true });
    expect((await call(fileSystem.url('core'), 'GET', '/admin/ready')).status).toBe(503);
    expect(fileSystem.logs).toContainEqual(expect.objectContaining({ reason: `catalog could not be loaded: ${file} ${CAP_MESSAGE}: reading stopped there` }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
