import { randomUUID } from 'node:crypto';
import { JwksServer } from '../support/jwks-server.js';
import { miniModelHost, VALID_WIDGET } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { call } from '../support/system.js';
import { eventually } from '../support/load-loop.js';

/**
 * Issue 8, logs: the whole output (stdout and stderr, LOG_LEVEL=trace) of the built server through
 * a full run (start, accepted and refused requests on every facade, an internal failure, a key set
 * outage, a registry problem, SIGTERM) holds no token, no Authorization header, no identity header
 * value, and nothing of the payload of a refused request.
 */
let host: ArtifactHost;
let registryEnv: Record<string, string>;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  registryEnv = mini.env;
  // A version whose OWL host fails (a logged registry problem) and an indicator version whose
  // calculation overflows (a logged internal failure); that version has no artifacts, so it validates.
  host.serve('/mini/2.0/owl.ttl', { status: 500, body: 'upstream failure' });
  host.serve(
    '/re/0.0.8/calculation.json',
    JSON.stringify({
      model_version: '0.0.8',
      indicator_configurations: { IND: { parameters: [{ parameter_ref: 'P1', weight: 1, questions: [{ question_id: 'Q1', weight: 10, answers: [{ answer_id: 'a', score: 1e308 }] }] }] } },
    }),
  );
  host.serve('/catalog.json', JSON.stringify([...mini.catalog, { model: 'mini', version: '2.0', base_url: `${host.url}/mini/2.0/` }, { model: 're-indicators-specification', version: '0.0.8' }]));
});
afterAll(() => host?.stop());

/** Secrets a request carries, collected so the output can be searched for every one of them. */
class Secrets {
  readonly values: string[] = [];
  /** A payload fragment unique to one refused request. */
  marker(): string {
    return this.keep(`refused-payload-${randomUUID()}`);
  }
  keep(value: string): string {
    this.values.push(value);
    return value;
  }
  /** A token and its parts (a log could hold a header, a payload or a signature alone). */
  token(token: string): string {
    this.keep(token);
    token
      .split('.')
      .filter((part) => part.length > 16)
      .forEach((part) => this.keep(part));
    return token;
  }
}

function expectClean(output: string, secrets: Secrets): void {
  expect(output.length).toBeGreaterThan(0);
  for (const secret of secrets.values) expect({ secret, found: output.includes(secret) }).toEqual({ secret, found: false });
  expect(output).not.toMatch(/bearer\s+[\w-]+\.[\w-]+/i);
  expect(output).not.toMatch(/"authorization"\s*:\s*"(?!\[Redacted\])/i);
}

const json = (headers: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...headers });

test('jwt_jwks: a full run leaves no token, Authorization header or refused payload in the output', async () => {
  const idp = await JwksServer.start();
  const secrets = new Secrets();
  let server: ServerProcess | undefined;
  try {
    server = await spawnServer({
      ...registryEnv,
      ...idp.authEnv(),
      AUTH_JWKS_REFRESH_SECS: '1',
      LOG_LEVEL: 'trace',
      REGISTRY_REQUIRE_HTTPS: 'false',
      ARTIFACT_BASE_URL_TEMPLATE: `${host.url}/re/{version}/`,
    });
    const url = server.url.bind(server);
    const auth = (token: string) => ({ authorization: `Bearer ${secrets.token(token)}` });
    const good = auth(await idp.sign({ scope: 'records:read records:write' }));
    const readOnly = auth(await idp.sign({ scope: 'records:read' }));

    // Accepted requests.
    await call(url('core'), 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET }, headers: good });
    await call(url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model } }' }, headers: good });
    // Refused: bad tokens on every edge, each carrying a payload.
    for (const token of [await idp.sign({ aud: 'other' }), await idp.signWithUnknownKid(), idp.algNoneToken(), await idp.hs256WithPublicKey(), 'garbage.token.value-with-enough-length']) {
      const headers = auth(token);
      await call(url('core'), 'POST', '/models/mini/versions/1.0:create', { body: { payload: { ...VALID_WIDGET, note: secrets.marker() } }, headers: { ...headers, 'idempotency-key': 'k1' } });
      await call(url('records'), 'POST', '/records', { body: { id: 'x', model: 'm', version: '1', payload: secrets.marker() }, headers: { ...headers, 'idempotency-key': 'k2' } });
      await call(url('gateway'), 'POST', '/graphql', {
        body: { query: 'query ($p: JSONObject!) { modelVersion(model: "mini", version: "1.0") { validation(payload: $p) { passed } } }', variables: { p: { m: secrets.marker() } } },
        headers,
      });
      await call(url('indicators'), 'POST', '/compute', { body: { payload: { indicator_specification_id: secrets.marker() } }, headers });
    }
    // Refused with a valid token: forbidden, invalid, malformed, too deep, unknown model, conflicts.
    await call(url('core'), 'POST', '/models/mini/versions/1.0:create', { body: { payload: { ...VALID_WIDGET, note: secrets.marker() } }, headers: { ...readOnly, 'idempotency-key': 'k3' } });
    await call(url('core'), 'POST', '/models/mini/versions/1.0:create', { body: { payload: { id: 'w', weight: secrets.marker() } }, headers: { ...good, 'idempotency-key': 'k4' } });
    await call(url('core'), 'POST', '/models/mini/versions/1.0:validate', { body: `{"payload": {"x": "${secrets.marker()}"`, headers: json(good) });
    await call(url('core'), 'POST', '/models/mini/versions/1.0:validate', { body: `{"payload": ${'['.repeat(100)}"${secrets.marker()}"${']'.repeat(100)}}`, headers: json(good) });
    await call(url('core'), 'POST', '/models/nope/versions/9:validate', { body: { payload: { x: secrets.marker() } }, headers: good });
    await call(url('core'), 'POST', '/models/mini/versions/1.0:query', { body: { filter: { where: [{ field: secrets.marker(), op: 'eq', value: 1 }] } }, headers: good });
    await call(url('records'), 'POST', '/records', { body: { id: 7, model: 'm', version: '1', payload: secrets.marker() }, headers: { ...good, 'idempotency-key': 'k5' } });
    await call(url('impact'), 'POST', '/compute', { body: { product_system: secrets.marker() } });
    await call(url('indicators'), 'POST', '/compute', { body: { payload: { indicator_specification_id: 'IND', note: secrets.marker() } }, headers: good });
    // An internal failure (a score that overflows) while a payload and a token are in the request.
    const overflow = await call(url('indicators'), 'POST', '/compute', {
      body: {
        model_version: '0.0.8',
        payload: { indicator_specification_id: 'IND', note: secrets.marker(), parameter_assessments: [{ parameter_id: 'P1', question_answers: [{ question_id: 'Q1', selected_answer_id: 'a' }] }] },
      },
      headers: good,
    });
    expect(overflow.status).toBe(500);
    // A key set outage: the refresh once the cache expired fails (and is logged); a new kid is then 503.
    // The server's clock is its own (a child process): asked until its 1 s cache has expired.
    await idp.down();
    const unknownKid = auth(await idp.signWithUnknownKid());
    expect(await eventually(async () => (await call(url('core'), 'GET', '/models', { headers: unknownKid })).status === 503)).toBe(true);

    await server.stop();
    expect(server.output()).toContain('"msg":"stopping"');
    expect(server.output()).toContain('key set fetch failed');
    expect(server.output()).toContain('registry: artifact problem');
    expectClean(server.output(), secrets);
  } finally {
    await server?.stop();
    await idp.close();
  }
});

test('forward_auth: identity header values of accepted and refused requests never reach the output', async () => {
  const secrets = new Secrets();
  const server = await spawnServer({ ...registryEnv, AUTH_MODE: 'forward_auth', AUTH_FORWARD_TENANT_HEADER: 'x-auth-tenant', AUTH_FORWARD_TOKEN_HEADER: 'x-auth-token', LOG_LEVEL: 'trace' });
  try {
    const identity = () => ({
      'x-auth-subject': secrets.keep(`subject-${randomUUID()}`),
      'x-auth-tenant': secrets.keep(`tenant-${randomUUID()}`),
      'x-auth-token': secrets.keep(`token-${randomUUID()}`),
      'x-auth-scopes': 'records:read',
    });
    await call(server.url('core'), 'POST', '/models/mini/versions/1.0:validate', { body: { payload: VALID_WIDGET }, headers: identity() });
    await call(server.url('core'), 'POST', '/models/mini/versions/1.0:create', { body: { payload: { ...VALID_WIDGET, note: secrets.marker() } }, headers: { ...identity(), 'idempotency-key': 'k' } });
    await call(server.url('gateway'), 'POST', '/graphql', { body: { query: '{ records(filter: {}) { nodes { id } } }' }, headers: identity() });
    await call(server.url('records'), 'GET', '/records/nope', { headers: { ...identity(), 'x-auth-subject': ' ' } });
    await server.stop();
    expectClean(server.output(), secrets);
  } finally {
    await server.stop();
  }
});
