import { displayUrl } from '../../kernel/display-url.js';
import { ArtifactHost } from '../support/artifact-host.js';
import { miniArtifact } from '../support/mini-model.js';
import { type Answer, NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue: artifact and catalog URLs were shown with their `user:password@` part and their query
 * string, in /admin/status registry.errors, the refresh report, 502 messages, :validate details and
 * the log (`catalog could not be loaded: http://ops:PASS@…`). Every URL that reaches a message or a
 * log line is now scheme, host and path only (`displayUrl`). The catalog and every artifact URL
 * here carry credentials and a token; the credentials still reach the host, as Basic authentication.
 * What a message shows does not depend on the process layout: the system runs in the jest process,
 * its log lines kept.
 */
const USER = 'ops';
const PASSWORD = 'PASS-7c41';
const TOKEN = 'TOKEN-90b3';
const SECRETS = [`${USER}:`, PASSWORD, TOKEN, 'token=', 'frag'];

let host: ArtifactHost;
let refusing: string;
let sut: TestSystem;
let core: string;
/** The first refresh once the catalog is up (it was down at start-up). */
let report: Answer;

/** `http://ops:PASS-7c41@127.0.0.1:<port><path>?token=TOKEN-90b3#frag` */
const secretUrl = (base: string, path: string) => `${base.replace('://', `://${USER}:${PASSWORD}@`)}${path}?token=${TOKEN}#frag`;

function expectNoSecret(surface: string, text: string): void {
  for (const secret of SECRETS) expect({ surface, shows: secret, found: text.includes(secret) }).toEqual({ surface, shows: secret, found: false });
}

beforeAll(async () => {
  host = await new ArtifactHost().start();
  const closed = await new ArtifactHost().start();
  await closed.stop();
  refusing = closed.url;
  for (const file of ['schema.json', 'owl.ttl'] as const) host.serve(`/mini/1.0/${file}`, miniArtifact(file));
  host.serve('/mini/1.0/shacl.ttl', { status: 503, body: 'upstream detail' });
  host.serve('/huge/schema.json', { stream: {} });
  host.serve('/catalog.json', { status: 503 });
  sut = await startInProcessSystem(
    {
      ...NO_AUTH,
      REGISTRY_CATALOG_URL: secretUrl(host.url, '/catalog.json'),
      REGISTRY_REQUIRE_HTTPS: 'false',
      REGISTRY_FETCH_TIMEOUT_MS: '5000',
      REGISTRY_ARTIFACT_MAX_BYTES: '65536',
    },
    { logs: true },
  );
  core = sut.url('core');
  host.serve(
    '/catalog.json',
    JSON.stringify([
      {
        model: 'mini',
        version: '1.0',
        root_class: 'Widget',
        schema_url: secretUrl(host.url, '/mini/1.0/schema.json'),
        shacl_url: secretUrl(host.url, '/mini/1.0/shacl.ttl'),
        owl_url: secretUrl(refusing, '/mini/1.0/owl.ttl'),
      },
      { model: 'mini', version: '2.0', schema_url: secretUrl(host.url, '/huge/schema.json') },
    ]),
  );
  report = await call(core, 'POST', '/admin/registry/refresh');
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
});

test('displayUrl keeps scheme, host and path only', () => {
  expect(displayUrl(`https://${USER}:${PASSWORD}@models.example:8443/a/b.ttl?token=${TOKEN}#frag`)).toBe('https://models.example:8443/a/b.ttl');
  expect(displayUrl(`file:///srv/catalog.json?token=${TOKEN}`)).toBe('file:///srv/catalog.json');
  expect(displayUrl(`not a url ${PASSWORD}`)).toBe('(not a valid URL)');
});

describe('a catalog and artifacts behind URLs with user:password and ?token=', () => {
  const expectedErrors = () => [
    { model: 'mini', version: '1.0', artifact: 'shacl', message: `${host.url}/mini/1.0/shacl.ttl answered HTTP 503` },
    { model: 'mini', version: '1.0', artifact: 'owl', message: `${refusing}/mini/1.0/owl.ttl could not be fetched: network error ECONNREFUSED` },
    {
      model: 'mini',
      version: '2.0',
      artifact: 'schema',
      message: `${host.url}/huge/schema.json is larger than REGISTRY_ARTIFACT_MAX_BYTES (65536 bytes): reading stopped there`,
    },
  ];

  test('the refresh report and /admin/status registry.errors name each URL without them', async () => {
    expect(report.status).toBe(200);
    expect(report.json).toEqual({ refreshed_at: expect.any(String), models_found: 2, errors: expectedErrors() });
    expectNoSecret('refresh report', report.text);
    // The credentials did reach the hosts, as Basic authentication.
    expect(host.headers.get('/catalog.json')?.authorization).toBe(`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`);
    expect(host.headers.get('/mini/1.0/schema.json')?.authorization).toBe(`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`);

    const status = await call(core, 'GET', '/admin/status');
    expect(status.json.registry.errors).toEqual(expectedErrors());
    expectNoSecret('/admin/status', status.text);
  });

  test('the 502 REGISTRY_ERROR of an artifact whose fetch failed', async () => {
    const answer = await call(core, 'GET', '/models/mini/versions/1.0/shacl');
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({
      code: 'REGISTRY_ERROR',
      message: `${host.url}/mini/1.0/shacl.ttl answered HTTP 503`,
      details: { model: 'mini', version: '1.0', artifact: 'shacl' },
    });
    expectNoSecret('artifact 502', answer.text);
  });

  test(':validate details name the failed artifacts without them', async () => {
    const answer = await call(core, 'POST', '/models/mini/versions/1.0:validate', { body: { payload: { id: 'w-1' } } });
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({
      code: 'VALIDATOR_ERROR',
      message: expect.any(String),
      details: expectedErrors()
        .filter((e) => e.version === '1.0')
        .map(({ artifact, message }) => ({ artifact, message })),
    });
    expectNoSecret(':validate', answer.text);
  });

  test('the 502 REGISTRY_ERROR of a catalog that fails on refresh', async () => {
    const catalog = host.files.get('/catalog.json')!;
    host.serve('/catalog.json', { status: 503 });
    try {
      const answer = await call(core, 'POST', '/admin/registry/refresh');
      expect(answer.status).toBe(502);
      expect(answer.json).toEqual({ code: 'REGISTRY_ERROR', message: `catalog could not be loaded: ${host.url}/catalog.json answered HTTP 503`, details: null });
      expectNoSecret('catalog 502', answer.text);
    } finally {
      host.files.set('/catalog.json', catalog);
    }
  });

  test('the log: the start-up catalog failure, each artifact problem, the server errors', () => {
    const lines = sut.logs.map((line) => JSON.stringify(line));
    expect(sut.logs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: 'registry: catalog could not be loaded; not ready until a refresh succeeds',
          reason: `catalog could not be loaded: ${host.url}/catalog.json answered HTTP 503`,
        }),
        ...expectedErrors().map((registryError) => expect.objectContaining({ msg: 'registry: artifact problem', registryError })),
        expect.objectContaining({ msg: 'server error', status: 502, codes: ['REGISTRY_ERROR'] }),
      ]),
    );
    expectNoSecret('log', lines.join('\n'));
  });
});
