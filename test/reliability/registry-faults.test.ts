import { pathToFileURL } from 'node:url';
import { projectPath } from '../../kernel/project.js';
import { readSystemConfig } from '../../server/config.js';
import { WorkerArtifactPreparer } from '../../subgraphs/models/adapters/artifact-preparer.js';
import type { ArtifactHost, HostedFile } from '../support/artifact-host.js';
import { miniArtifact, miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import { eventually } from '../support/load-loop.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startInProcessSystem, startTestSystem } from '../support/system.js';

/**
 * Issue 8, faults: the artifact host turns slow (past REGISTRY_FETCH_TIMEOUT_MS), fails or serves a
 * broken Turtle file while the registry refreshes. The version keeps its working build (validation,
 * artifacts), the refresh reports the artifact, and a later good refresh heals without a restart.
 * What a fault does to a refresh does not depend on the process layout: the system in the jest
 * process. The preparation threads, one per worker, are tested on the built server below.
 */
const FETCH_TIMEOUT_MS = 400;
const SHACL = '/mini/1.0/shacl.ttl';

let host: ArtifactHost;
let sut: TestSystem;
let core: string;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env, REGISTRY_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS) });
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

/**
 * Issue 35, row 10: each refresh started the preparation thread anew (0.5 to 0.9 s of module
 * loading, paid again by every replica that follows a refresh). It is now kept between refreshes,
 * and one that crashes or hangs is replaced, never leaving refreshes stuck.
 */
describe('the artifact preparation thread', () => {
  let mini: Awaited<ReturnType<typeof miniModelHost>>;
  let system: TestSystem;
  let workers: number;
  const env = () => ({ ...NO_AUTH, ...mini.env, REGISTRY_FETCH_TIMEOUT_MS: undefined });
  const lines = (msg: string) => system.logs.filter((line) => line.msg?.startsWith(msg));
  const started = () => lines('registry: artifact preparation thread started');
  // Each on a connection of its own: a worker the thread's memory took past WORKER_MAX_RSS_MB is
  // replaced and drains, closing the idle keep-alive connection a pooled call would reuse.
  const refreshOn = () => callOnNewConnection(system.url('core'), 'POST', '/admin/registry/refresh');

  beforeAll(async () => {
    mini = await miniModelHost();
    workers = readSystemConfig(env()).workers;
    system = await startTestSystem(env());
  });
  afterAll(async () => {
    await system?.stop();
    await mini?.host.stop();
  });
  afterEach(() => mini.host.serve('/mini/1.0/shacl.ttl', miniArtifact('shacl.ttl')));

  test('each worker starts one at its first load and keeps it between refreshes', async () => {
    const atStart = started();
    expect(new Set(atStart.map((line) => line.pid)).size).toBe(workers);
    expect(atStart).toHaveLength(workers);
    for (let i = 0; i < 2; i++) expect((await refreshOn()).json).toEqual({ refreshed_at: expect.any(String), models_found: 1, errors: [] });
    expect(started()).toEqual(atStart);
  });

  /**
   * A 15 MB Turtle file of short triples (under REGISTRY_ARTIFACT_MAX_BYTES, 16 MiB) takes the
   * thread past its heap bound: the thread dies, not the worker; the version keeps its build and the
   * refresh reports it; the next refresh prepares on a new thread.
   */
  test('a thread out of memory fails its version alone and is replaced', async () => {
    const before = started().length;
    const triples = Array.from({ length: 700_000 }, (_, n) => `:s${n} :p :o${n} .`);
    mini.host.serve('/mini/1.0/shacl.ttl', `@prefix : <urn:x:> .\n${triples.join('\n')}\n`);
    const report = await refreshOn();
    expect(report.status).toBe(200);
    const outOfMemory = expect.stringMatching(/cannot be compiled: the artifact worker failed: .*memory limit/);
    expect(report.json.errors).toEqual(['schema', 'shacl', 'owl'].map((artifact) => ({ model: 'mini', version: '1.0', artifact, message: outOfMemory })));
    const failedIn = () => new Set(lines('registry: artifact preparation thread failed').map((line) => line.pid)).size;
    expect(await eventually(() => failedIn() === workers)).toBe(true);
    const validated = await callOnNewConnection(system.url('core'), 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET } });
    expect(validated.json.passed).toBe(true);

    mini.host.serve('/mini/1.0/shacl.ttl', miniArtifact('shacl.ttl'));
    expect((await refreshOn()).json.errors).toEqual([]);
    expect(started()).toHaveLength(before + workers);
  });
});

/**
 * A thread that hangs (a version whose preparation never ends) or exits: its versions fail with the
 * reason and the next version gets a new thread. The thread below is the real preparation with two
 * versions it cannot survive; `hungAfterMs` is what the first case is about.
 */
describe('WorkerArtifactPreparer with a thread that hangs or exits', () => {
  const domain = pathToFileURL(projectPath('dist', 'subgraphs', 'models', 'domain', 'validation', 'prepare-artifacts.js')).href;
  const script = new URL(
    `data:text/javascript,${encodeURIComponent(`import { parentPort } from 'node:worker_threads';
import { prepareArtifacts, transferablesOf } from ${JSON.stringify(domain)};
parentPort.on('message', ({ id, texts, rootClass }) => {
  if (texts.schema === 'HANG') for (;;);
  if (texts.schema === 'EXIT') process.exit(1);
  const prepared = prepareArtifacts(texts, rootClass);
  parentPort.postMessage({ id, prepared }, transferablesOf(prepared));
});`)}`,
  );
  const mini = { schema: miniArtifact('schema.json'), shacl: miniArtifact('shacl.ttl'), owl: miniArtifact('owl.ttl') };

  test.each([
    ['HANG', /answered nothing for 10 s and was stopped/],
    ['EXIT', /the artifact worker stopped/],
  ])('%s: its version fails, the next gets a new thread', async (marker, reason) => {
    const threads: number[] = [];
    const failures: string[] = [];
    // Ten seconds: a new thread's first answer (its modules loaded, the model compiled) took more than 2 s on a busy machine.
    const preparer = new WorkerArtifactPreparer({ hungAfterMs: 10_000, script, observer: { started: (id) => threads.push(id), failed: (_id, why) => failures.push(why) } });
    try {
      expect((await preparer.prepare(mini, 'Widget')).problems).toEqual([]);
      const [stuck, queued] = await Promise.all([preparer.prepare({ schema: marker }), preparer.prepare(mini, 'Widget')]);
      expect(stuck.problems).toEqual([{ artifact: 'schema', message: expect.stringMatching(reason) }]);
      expect(queued.problems).toHaveLength(3);
      expect(failures).toEqual([expect.stringMatching(reason)]);
      expect((await preparer.prepare(mini, 'Widget')).problems).toEqual([]);
      expect(new Set(threads).size).toBe(2);
    } finally {
      await preparer.close();
    }
  });
});
