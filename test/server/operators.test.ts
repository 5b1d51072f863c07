import { pathToFileURL } from 'node:url';
import { projectPath } from '../../kernel/project.js';
import { miniModelHost } from '../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startInProcessSystem, startTestSystem } from '../support/system.js';
import { eventually } from '../support/load-loop.js';

/**
 * Issue "For the people who run it": what an operator reads. The start-up says what it did (each
 * migration, the registry's load, one summary line at `started`); every request at the edge leaves
 * one access line (probes left out, ACCESS_LOG=false for none); a start-up where no artifact of any
 * version loads says so loudly, naming the setting, and is not ready, while a partial failure is.
 */
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
const fileCatalog = JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: `${SAMPLE}/` }]);

const lines = (sut: TestSystem, msg: string) => sut.logs.filter((line) => line.msg === msg);

describe('start-up and access log, as `npm run serve` starts', () => {
  let sut: TestSystem;
  beforeAll(async () => {
    const mini = await miniModelHost();
    sut = await startTestSystem({ ...NO_AUTH, ...mini.env });
  });

  test('each migration applied, the registry loaded, and one summary line at started', async () => {
    const migrations = lines(sut, 'records store: migration applied');
    expect(migrations.length).toBeGreaterThan(0);
    expect(migrations[0]).toEqual(expect.objectContaining({ migration: expect.stringMatching(/^\d{14}_[a-z0-9_]+$/), ms: expect.any(Number) }));
    expect(lines(sut, 'registry loaded')).toEqual(expect.arrayContaining([expect.objectContaining({ models: 1, errors: 0, ms: expect.any(Number) })]));
    const [started] = lines(sut, 'started');
    expect(started).toEqual(
      expect.objectContaining({
        ports: expect.objectContaining({ core: expect.any(Number), gateway: expect.any(Number) }),
        role: 'all',
        workers: expect.any(Number),
        workerPids: expect.any(Array),
        heapGrowthPercent: 50,
        auth: 'none',
        store: expect.stringMatching(/^sqlite \//),
        catalog: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/catalog\.json$/),
        planner: 'hive',
      }),
    );
  });

  test('one access line per request at the edge, with its route or operation, status, duration, request id and client; probes left out', async () => {
    const models = await callOnNewConnection(sut.url('core'), 'GET', '/models');
    const probe = await callOnNewConnection(sut.url('core'), 'GET', '/admin/health');
    const graph = await call(sut.url('gateway'), 'POST', '/graphql', {
      body: { query: 'query ListVersions { modelVersions { version } }' },
      headers: { 'graphql-client-name': 'passport-app' },
    });
    const ofRequest = (requestId: string) => lines(sut, 'request').filter((line) => line.requestId === requestId);
    await eventually(() => ofRequest(graph.headers.get('x-request-id')!).length === 1);
    expect(ofRequest(models.headers.get('x-request-id')!)).toEqual([
      expect.objectContaining({ door: 'core', method: 'GET', route: '/models', status: 200, durationMs: expect.any(Number), client: 'unknown' }),
    ]);
    expect(ofRequest(graph.headers.get('x-request-id')!)).toEqual([
      expect.objectContaining({ door: 'graphql', method: 'POST', route: '/graphql', operation: 'ListVersions', status: 200, client: 'passport-app' }),
    ]);
    expect(ofRequest(probe.headers.get('x-request-id')!)).toEqual([]);
  });
});

// What a setting or the registry's hosts make of the log and the readiness does not depend on the
// process layout: the system in the jest process, its lines kept.
test('ACCESS_LOG=false: no access line', async () => {
  const mini = await miniModelHost();
  const sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env, ACCESS_LOG: 'false' }, { logs: true });
  expect((await callOnNewConnection(sut.url('core'), 'GET', '/models')).status).toBe(200);
  expect((await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersionCount }' } })).status).toBe(200);
  expect(lines(sut, 'request')).toEqual([]);
});

test('every artifact refused (a file: catalog without REGISTRY_ALLOW_FILE_URLS): an error line naming the setting, and not ready', async () => {
  const sut = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: fileCatalog }, { logs: true });
  const loud = lines(sut, 'registry: no artifact of any model version could be loaded; nothing can be validated until a setting or the hosts are fixed');
  expect(loud.length).toBeGreaterThan(0);
  expect(loud[0]).toEqual(expect.objectContaining({ level: 50, reasons: expect.arrayContaining([expect.stringContaining('REGISTRY_ALLOW_FILE_URLS=true allows them')]) }));
  const ready = await call(sut.url('core'), 'GET', '/admin/ready');
  expect(ready.status).toBe(503);
  expect(ready.json).toEqual(
    expect.objectContaining({ status: 'not_ready', reasons: ['no artifact of any model version could be loaded: nothing can be validated (see /admin/status registry.errors)'] }),
  );
});

test('a partial failure (one artifact of the version missing from its host) stays ready, as the contract says', async () => {
  const mini = await miniModelHost();
  mini.host.serve('/mini/1.0/shacl.ttl', { status: 503 });
  const sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env });
  const ready = await call(sut.url('core'), 'GET', '/admin/ready');
  expect(ready.status).toBe(200);
  expect((await call(sut.url('core'), 'GET', '/admin/status')).json.registry.errors).toEqual([expect.objectContaining({ model: 'mini', artifact: 'shacl' })]);
});
