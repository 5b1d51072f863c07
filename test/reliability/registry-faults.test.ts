import type { ArtifactHost, HostedFile } from '../support/artifact-host.js';
import { miniArtifact, miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../support/system.js';

/**
 * Issue 8, faults: the artifact host turns slow (past REGISTRY_FETCH_TIMEOUT_MS), fails or serves a
 * broken Turtle file while the registry refreshes. The version keeps its working build (validation,
 * artifacts), the refresh reports the artifact, and a later good refresh heals without a restart.
 */
const FETCH_TIMEOUT_MS = 400;
const SHACL = '/mini/1.0/shacl.ttl';

let host: ArtifactHost;
let sut: TestSystem;
let core: string;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  sut = await startTestSystem({ ...NO_AUTH, ...mini.env, REGISTRY_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS) });
  core = sut.url('core');
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
});
afterEach(() => host.serve(SHACL, miniArtifact('shacl.ttl')));

const validate = (payload: unknown) => call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload } });
const refresh = () => call(core, 'POST', '/admin/registry/refresh');
/** Closed SHACL shape and additionalProperties:false: both validators must still report this. */
const EXTRA_KEY = { ...VALID_WIDGET, colour: 'red' };

async function expectWorkingBuild(): Promise<void> {
  const valid = await validate(VALID_WIDGET);
  expect(valid.status).toBe(200);
  expect(valid.json.passed).toBe(true);
  const invalid = await validate(EXTRA_KEY);
  expect(invalid.status).toBe(200);
  expect(invalid.json.results.map((r: { kind: string; passed: boolean }) => [r.kind, r.passed])).toEqual([
    ['JsonSchema', false],
    ['Shacl', false],
    ['Owl', true],
  ]);
  const shacl = await call(core, 'GET', '/models/mini/versions/1.0/shacl');
  expect(shacl.status).toBe(200);
  expect(shacl.text).toBe(miniArtifact('shacl.ttl'));
}

describe.each<[string, HostedFile, RegExp]>([
  ['slower than REGISTRY_FETCH_TIMEOUT_MS', { body: miniArtifact('shacl.ttl'), delayMs: FETCH_TIMEOUT_MS * 4 }, /timed out/],
  ['failing with HTTP 503', { status: 503, body: 'upstream secret' }, /HTTP 503/],
  ['serving a broken Turtle file', { body: '@prefix sh: <http://www.w3.org/ns/shacl#> . this is @@ not turtle' }, /shacl artifact cannot be compiled/],
])('artifact host %s during a refresh', (_name, fault, reason) => {
  test('validation keeps working during and after it, the refresh reports the artifact', async () => {
    await expectWorkingBuild();
    host.serve(SHACL, fault);
    const refreshing = refresh();
    // Requests during the refresh are served by the index in place.
    await expectWorkingBuild();
    const report = await refreshing;
    expect(report.status).toBe(200);
    expect(report.json.errors).toEqual([{ model: 'mini', version: '1.0', artifact: 'shacl', message: expect.stringMatching(reason) }]);
    expect(report.text).not.toContain('upstream secret');
    await expectWorkingBuild();
    const status = await call(core, 'GET', '/admin/status');
    expect(status.json.registry.errors).toEqual(report.json.errors);
  });

  test('the host recovering heals the registry without a restart', async () => {
    host.serve(SHACL, fault);
    expect((await refresh()).json.errors).toHaveLength(1);
    host.serve(SHACL, miniArtifact('shacl.ttl'));
    expect((await refresh()).json.errors).toEqual([]);
    expect((await call(core, 'GET', '/admin/status')).json.registry.errors).toEqual([]);
    await expectWorkingBuild();
  });
});

// The host would answer long after jest's timeout: only REGISTRY_FETCH_TIMEOUT_MS ends this refresh.
test('a slow host bounds the refresh by REGISTRY_FETCH_TIMEOUT_MS, not by the host', async () => {
  host.serve(SHACL, { body: miniArtifact('shacl.ttl'), delayMs: 600_000 });
  const report = await refresh();
  expect(report.status).toBe(200);
  expect(report.json.errors).toEqual([expect.objectContaining({ artifact: 'shacl', message: expect.stringMatching(/timed out/) })]);
});
