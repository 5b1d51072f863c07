import { type Socket, connect } from 'node:net';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { eventually } from '../support/load-loop.js';
import { JwksServer } from '../support/jwks-server.js';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../support/system.js';

/**
 * Issue 13, item 5: slow and careless clients. A client trickling its headers held a connection 87 s
 * and one trickling a body 327 s (Node's defaults); a header over the size limit got Node's bare 431;
 * a repeated identity header was merged into an identity nobody sent ("A, B").
 */
let sut: TestSystem;
beforeAll(async () => {
  sut = await startTestSystem({
    ...NO_AUTH,
    REGISTRY_CATALOG_JSON: '[]',
    SERVER_HEADERS_TIMEOUT_MS: '1000',
    SERVER_REQUEST_TIMEOUT_MS: '2000',
  });
});

interface RawConversation {
  socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
}

/** A raw TCP conversation with a listener, closed when the test ends. */
function converse(listener: string): RawConversation {
  const socket = connect(Number(new URL(sut.url(listener)).port), '127.0.0.1');
  stopAtScopeEnd(() => socket.destroy());
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(received))) };
}

/** Writes `piece` every 200 ms until the connection closes (or the test ends). */
function trickle(socket: Socket, piece: string): void {
  const timer = setInterval(() => socket.writable && socket.write(piece), 200);
  socket.once('close', () => clearInterval(timer));
  stopAtScopeEnd(() => clearInterval(timer));
}

const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

// Each client below would hold its connection for as long as it trickles (forever): only the
// server's timeouts end these conversations within the test's time.
test('headers trickled past SERVER_HEADERS_TIMEOUT_MS: 408 in the facade envelope, connection closed', async () => {
  const { socket, closed } = converse('core');
  socket.write('GET /admin/health HTTP/1.1\r\nHost: x\r\n');
  trickle(socket, 'X-Slow: y\r\n');
  const raw = await closed;
  expect(raw).toMatch(/^HTTP\/1\.1 408 /);
  expect(bodyOf(raw)).toEqual({ code: 'REQUEST_TIMEOUT', message: 'the request was not received in time', details: null });
});

test('a body trickled past SERVER_REQUEST_TIMEOUT_MS: 408, connection closed', async () => {
  const { socket, closed } = converse('records');
  socket.write('POST /records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
  trickle(socket, ' ');
  const raw = await closed;
  expect(raw).toMatch(/^HTTP\/1\.1 408 /);
  expect(bodyOf(raw)).toMatchObject({ code: 'bad_request', message: 'the request was not received in time' });
});

test.each([
  ['core', { code: 'HEADERS_TOO_LARGE', message: 'request headers are too large', details: null }],
  ['records', { code: 'bad_request', message: 'request headers are too large', details: null }],
  ['impact', { detail: { code: 'HEADERS_TOO_LARGE', message: 'request headers are too large' } }],
  ['gateway', { errors: [{ message: 'request headers are too large', extensions: { code: 'HEADERS_TOO_LARGE', details: null } }] }],
])('%s: a header over the size limit is 431 in the door’s envelope', async (listener, envelope) => {
  const { socket, closed } = converse(listener);
  socket.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  const raw = await closed;
  expect(raw).toMatch(/^HTTP\/1\.1 431 /);
  expect(bodyOf(raw)).toEqual(envelope);
});

/**
 * One process: the cap is each process's (`server.maxConnections`), and with workers Node's cluster
 * primary hands a connection a full worker refuses to another worker, so "beyond the cap" is a
 * single process's notion (docs/DECISIONS.md). WORKERS is set because it is what the cap is about.
 */
test('SERVER_MAX_CONNECTIONS (one process): a connection beyond the cap is closed at once; one freed is usable again', async () => {
  const single = await startTestSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', SERVER_MAX_CONNECTIONS: '4', WORKERS: '1' });
  const port = Number(new URL(single.url('core')).port);
  const open = (): RawConversation => {
    const socket = connect(port, '127.0.0.1');
    stopAtScopeEnd(() => socket.destroy());
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(received))) };
  };
  const held = Array.from({ length: 4 }, open);
  await Promise.all(held.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
  const beyond = open();
  beyond.socket.write('GET /admin/health HTTP/1.1\r\nHost: x\r\n\r\n');
  expect(await beyond.closed).toBe('');
  held[0]!.socket.destroy();
  await held[0]!.closed;
  // The server counts the freed connection out when it sees it close, a moment after the client does.
  const answered = await eventually(async () => (await call(single.url('core'), 'GET', '/admin/health').catch(() => null))?.status === 200);
  expect(answered).toBe(true);
});

describe('a credential header sent twice is refused, never merged', () => {
  test('forward_auth: two tenant headers are 401, not the tenant "A, B"', async () => {
    const forwarded = await startTestSystem({ REGISTRY_CATALOG_JSON: '[]', AUTH_MODE: 'forward_auth', AUTH_FORWARD_TENANT_HEADER: 'x-auth-tenant' });
    const raw = await rawRequest(forwarded, 'core', 'GET /models HTTP/1.1\r\nHost: x\r\nX-Auth-Subject: alice\r\nX-Auth-Tenant: A\r\nX-Auth-Tenant: B\r\nConnection: close\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 401 /);
    expect(bodyOf(raw)).toEqual({ code: 'UNAUTHORIZED', message: 'the x-auth-tenant header was sent more than once', details: null });
    expect((await call(forwarded.url('core'), 'GET', '/models', { headers: { 'x-auth-subject': 'alice', 'x-auth-tenant': 'A' } })).status).toBe(200);
  });

  test('jwt_jwks: two Authorization headers are 401, whichever Node would have kept', async () => {
    const idp = await JwksServer.start();
    const verified = await startTestSystem({ REGISTRY_CATALOG_JSON: '[]', ...idp.authEnv() });
    const token = await idp.sign();
    const raw = await rawRequest(verified, 'core', `GET /models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer other\r\nConnection: close\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 401 /);
    expect(bodyOf(raw).message).toBe('the authorization header was sent more than once');
    expect((await call(verified.url('core'), 'GET', '/models', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});

/** Sends a raw request (fetch cannot send a header twice under one name) and returns the raw answer. */
function rawRequest(system: TestSystem, listener: string, request: string): Promise<string> {
  const socket = connect(Number(new URL(system.url(listener)).port), '127.0.0.1');
  stopAtScopeEnd(() => socket.destroy());
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.write(request);
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}
