import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError } from '../../../kernel/errors.js';
import { readAuthConfig, type ForwardAuthConfig } from '../../../kernel/identity/auth-config.js';
import { createAuthenticator } from '../../../kernel/identity/create-authenticator.js';
import { ForwardAuthAuthenticator } from '../../../kernel/identity/forward-auth-authenticator.js';
import { credentialSourceOf, type Identity } from '../../../kernel/identity/identity.js';
import { requestFrom } from './helpers.js';

function forwardAuth(env: Record<string, string> = {}): ForwardAuthAuthenticator {
  return new ForwardAuthAuthenticator(readAuthConfig({ AUTH_MODE: 'forward_auth', ...env }) as ForwardAuthConfig);
}

const IDENTITY_HEADERS = { 'x-auth-subject': 'alice', 'x-auth-roles': 'editor, viewer,,', 'x-auth-scopes': 'records:read  records:write' };

describe('forward_auth, default trusted proxies (127.0.0.0/8, ::1/128)', () => {
  const auth = forwardAuth();

  test.each(['127.0.0.1', '127.10.20.30', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])('trusted peer %s: identity from the headers', async (peer) => {
    await expect(auth.authenticate(requestFrom(IDENTITY_HEADERS, peer))).resolves.toEqual({
      subject: 'alice',
      roles: ['editor', 'viewer'],
      scopes: ['records:read', 'records:write'],
      tenant: null,
    });
  });

  test.each(['10.0.0.5', '::ffff:10.0.0.5', '2001:db8::1', '::2', 'fe80::1%eth0', 'not-an-ip', null])('untrusted peer %s: 401 whatever the headers say', async (peer) => {
    await expect(auth.authenticate(requestFrom(IDENTITY_HEADERS, peer))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'identity headers accepted only from trusted proxies',
    });
  });

  test('missing or blank subject: 401', async () => {
    for (const subject of [undefined, '', '   ']) {
      const headers: Record<string, string> = { 'x-auth-roles': 'editor' };
      if (subject !== undefined) headers['x-auth-subject'] = subject;
      const error = await auth.authenticate(requestFrom(headers)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'UNAUTHORIZED', message: 'authenticated subject required' });
    }
  });

  test('no roles or scopes headers: empty lists', async () => {
    await expect(auth.authenticate(requestFrom({ 'x-auth-subject': 'bob' }))).resolves.toEqual({ subject: 'bob', roles: [], scopes: [], tenant: null });
  });

  test('credentialHeaders are the identity headers, for remote subgraphs to re-check', () => {
    expect(auth.credentialHeaders).toEqual(['x-auth-subject', 'x-auth-roles', 'x-auth-scopes']);
  });
});

describe('forward_auth, configured', () => {
  const auth = forwardAuth({
    AUTH_FORWARD_SUBJECT_HEADER: 'X-Forwarded-User',
    AUTH_FORWARD_ROLES_HEADER: 'X-Forwarded-Groups',
    AUTH_FORWARD_SCOPES_HEADER: 'X-Forwarded-Scopes',
    AUTH_FORWARD_TENANT_HEADER: 'X-Tenant',
    AUTH_FORWARD_TOKEN_HEADER: 'X-Forwarded-Access-Token',
    AUTH_FORWARD_TRUSTED_PROXIES: '10.0.0.0/8,2001:db8::/32',
  });
  const headers = { 'x-forwarded-user': 'carol', 'x-forwarded-groups': 'admin', 'x-forwarded-scopes': 'a', 'x-tenant': ' acme ' };

  test.each(['10.1.2.3', '::ffff:10.1.2.3', '2001:db8:1::5'])('peer %s inside the configured blocks is trusted', async (peer) => {
    await expect(auth.authenticate(requestFrom(headers, peer))).resolves.toEqual({ subject: 'carol', roles: ['admin'], scopes: ['a'], tenant: 'acme' });
  });

  test.each(['127.0.0.1', '::1', '11.0.0.1', '2001:db9::1'])('peer %s outside them is not', async (peer) => {
    await expect(auth.authenticate(requestFrom(headers, peer))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  test('the doc 01 default header names mean nothing once others are configured', async () => {
    await expect(auth.authenticate(requestFrom({ 'x-auth-subject': 'mallory' }, '10.0.0.1'))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  test('a blank tenant header is no tenant', async () => {
    await expect(auth.authenticate(requestFrom({ ...headers, 'x-tenant': ' ' }, '10.0.0.1'))).resolves.toMatchObject({ tenant: null });
  });

  test('credentialHeaders include the optional tenant and token headers', () => {
    expect(auth.credentialHeaders).toEqual(['x-forwarded-user', 'x-forwarded-groups', 'x-forwarded-scopes', 'x-tenant', 'x-forwarded-access-token']);
    expect(createAuthenticator(readAuthConfig({ AUTH_MODE: 'forward_auth' })).mode).toBe('forward_auth');
  });
});

describe('forward_auth over a real dual-stack socket', () => {
  let server: Server;
  let seen: Promise<Identity | DomainError>;
  let peer: string | undefined;

  beforeAll(async () => {
    const auth = forwardAuth();
    server = createServer((req, res) => {
      peer = req.socket.remoteAddress;
      seen = auth.authenticate(credentialSourceOf(req)).catch((error: DomainError) => error);
      res.end();
    });
    // Listening on '::' makes IPv4 clients appear as IPv4-mapped IPv6 addresses (::ffff:127.0.0.1).
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function call(host: string): Promise<void> {
    const { port } = server.address() as AddressInfo;
    return new Promise((resolve, reject) => {
      request({ host, port, headers: { 'X-Auth-Subject': 'dave', 'X-Auth-Roles': 'r1' } }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end();
    });
  }

  test('an IPv4 client seen as ::ffff:127.0.0.1 is trusted', async () => {
    await call('127.0.0.1');
    expect(peer).toBe('::ffff:127.0.0.1');
    await expect(seen).resolves.toMatchObject({ subject: 'dave', roles: ['r1'] });
  });

  test('an IPv6 loopback client is trusted', async () => {
    await call('::1');
    expect(peer).toBe('::1');
    await expect(seen).resolves.toMatchObject({ subject: 'dave' });
  });
});
