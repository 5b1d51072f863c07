import { randomBytes, randomUUID } from 'node:crypto';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';
import { type Reply, type TestServer, startServer } from './http-fixtures.js';

/**
 * The indicator service's failing-core paths, seen from the outside: a caller sends a bearer token
 * to `POST /compute` while the core fails (answers 500 with a body echoing the token, answers
 * invalid JSON, is slower than HTTP_TIMEOUT_SECS, is down). Each answer is a 502
 * CORE_VALIDATION_ERROR envelope without the upstream body, and every line the system logs at
 * trace level (from its start to its stop) holds neither the tokens nor anything of the upstream
 * bodies. What the service logs does not depend on the process layout: the system runs in the jest
 * process, every line of its logger kept.
 */
const COMPUTE = {
  model_version: '0.0.4',
  payload: { indicator_specification_id: 'IND', parameter_assessments: [{ parameter_id: 'P1', question_answers: [] }] },
};

/** A token shaped like a JWT (three base64url parts), unique to one request. */
function newToken(): string {
  const part = (bytes: number) => randomBytes(bytes).toString('base64url');
  return `${part(24)}.${part(48)}.${part(32)}`;
}

/** Every secret that must not reach the output: tokens, their long parts, upstream body markers. */
const secrets: string[] = [];
function keepToken(token: string): string {
  secrets.push(token, ...token.split('.').filter((part) => part.length > 16));
  return token;
}
function keepMarker(): string {
  const marker = `upstream-secret-${randomUUID()}`;
  secrets.push(marker);
  return marker;
}

let core: TestServer;
let server: TestSystem;
let coreUp = true;

beforeAll(async () => {
  core = await startServer(() => ({ status: 500 }));
  server = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', CORE_BASE_URL: core.url, HTTP_TIMEOUT_SECS: '1' }, { logs: true, logLevel: 'trace' });
});
afterAll(async () => {
  await server?.stop();
  if (coreUp) await core?.close();
});

/** One compute with a fresh token against the core as `reply` makes it; returns the answer and the token. */
async function computeWithToken(reply: (token: string) => Reply | undefined) {
  const token = keepToken(newToken());
  const answer = reply(token);
  if (answer !== undefined) core.handler = () => answer;
  const response = await call(server.url('indicators'), 'POST', '/compute', { body: COMPUTE, headers: { authorization: `Bearer ${token}` } });
  return { response, token };
}

function expectBadGatewayWithoutUpstream(response: Awaited<ReturnType<typeof call>>, ...hidden: string[]): void {
  expect(response.status).toBe(502);
  expect(response.json).toEqual({ code: 'CORE_VALIDATION_ERROR', message: expect.any(String), details: expect.any(Object) });
  for (const secret of hidden) expect({ secret, found: response.text.includes(secret) }).toEqual({ secret, found: false });
}

describe('failing core with a bearer token on POST /compute (LOG_LEVEL=trace)', () => {
  test('core answers 500 with a body echoing the token: 502 without the body', async () => {
    const marker = keepMarker();
    const { response, token } = await computeWithToken((token) => ({
      status: 500,
      headers: { 'content-type': 'application/json', 'x-debug-token': token },
      body: JSON.stringify({ error: marker, received_authorization: `Bearer ${token}`, trace: `${marker}\n    at validate (core.py:12)` }),
    }));
    expectBadGatewayWithoutUpstream(response, token, marker, 'core.py');
    expect(response.json.details).toEqual({ validation_url: expect.stringMatching(/:validate$/), upstream_status: 500 });
    // The token did reach the core: the test is about what the service does with the failure.
    expect(core.requests.at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
  });

  test('core answers 500 as plain text holding the token: 502 without the body', async () => {
    const marker = keepMarker();
    const { response, token } = await computeWithToken((token) => ({ status: 500, headers: { 'content-type': 'text/plain' }, body: `${marker} Authorization: Bearer ${token}` }));
    expectBadGatewayWithoutUpstream(response, token, marker);
  });

  test('core answers 200 with a body that is not JSON and holds the token: 502 without the body', async () => {
    const marker = keepMarker();
    const { response, token } = await computeWithToken((token) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: `{"passed": ${marker} ${token}` }));
    expectBadGatewayWithoutUpstream(response, token, marker);
  });

  test('core slower than HTTP_TIMEOUT_SECS (1 s): 502', async () => {
    const marker = keepMarker();
    const { response, token } = await computeWithToken((token) => ({ status: 500, body: `${marker} ${token}`, delayMs: 30_000 }));
    expectBadGatewayWithoutUpstream(response, token, marker);
    expect(response.json.message).toMatch(/did not answer within 1 s/);
  });

  test('core down (connection refused): 502', async () => {
    await core.close();
    coreUp = false;
    const { response, token } = await computeWithToken(() => undefined);
    expectBadGatewayWithoutUpstream(response, token);
    expect(response.json.message).toMatch(/could not be reached/);
  });

  test('every line logged, through shutdown, holds no token and no upstream body', async () => {
    // The service kept serving through all of it.
    expect((await call(server.url('indicators'), 'GET', '/health')).status).toBe(200);
    await server.stop();
    const output = server.logs.map((line) => JSON.stringify(line)).join('\n');
    // The capture is the system's logger from its start (the registry's first load) to its stop,
    // each compute's access line among it. (Today an upstream failure is answered and logged as a
    // server error without its body; this guards whatever a later change logs on these paths, at
    // any level.)
    expect(server.logs).toContainEqual(expect.objectContaining({ msg: 'registry loaded' }));
    expect(server.logs.filter((line) => line.msg === 'request' && line.route === '/compute')).toHaveLength(5);
    expect(secrets.length).toBeGreaterThanOrEqual(5 * 4);
    for (const secret of secrets) expect({ secret, found: output.includes(secret) }).toEqual({ secret, found: false });
    expect(output).not.toMatch(/bearer\s+[\w-]+\.[\w-]+/i);
    expect(output).not.toMatch(/"authorization"\s*:\s*"(?!\[Redacted\])/i);
  });
});
