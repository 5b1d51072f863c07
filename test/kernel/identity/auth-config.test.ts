import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readAuthConfig } from '../../../kernel/identity/auth-config.js';
import { configErrorOf } from './helpers.js';
import { stopAtScopeEnd } from '../../support/cleanup.js';

const JWT_ENV = {
  AUTH_JWKS_URL: 'https://idp.example/realms/dpp/protocol/openid-connect/certs',
  AUTH_ISSUER: 'https://idp.example/realms/dpp',
  AUTH_AUDIENCE: 'dpp-api',
};

/** A policy file for the test that asks, removed when it ends. */
function policyFileWith(content: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'policy-'));
  stopAtScopeEnd(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'policy.json');
  writeFileSync(file, content);
  return file;
}

describe('AUTH_MODE', () => {
  test('jwt_jwks is the default', () => {
    expect(readAuthConfig(JWT_ENV).mode).toBe('jwt_jwks');
  });

  test('an unknown mode names the variable and the allowed values', () => {
    expect(configErrorOf(readAuthConfig, { AUTH_MODE: 'oidc' }).message).toBe('AUTH_MODE must be one of jwt_jwks, forward_auth, none, disabled (got "oidc")');
  });
});

describe('jwt_jwks', () => {
  test('reads every variable, refresh default 3600 s', () => {
    expect(readAuthConfig(JWT_ENV)).toEqual({
      mode: 'jwt_jwks',
      policy: {},
      jwksUrl: new URL(JWT_ENV.AUTH_JWKS_URL),
      issuer: JWT_ENV.AUTH_ISSUER,
      audience: JWT_ENV.AUTH_AUDIENCE,
      jwksRefreshSecs: 3600,
      jwksTimeoutMs: 5000,
    });
    const tuned = readAuthConfig({ ...JWT_ENV, AUTH_JWKS_REFRESH_SECS: '60', AUTH_JWKS_TIMEOUT_MS: '2000' });
    expect(tuned).toMatchObject({ jwksRefreshSecs: 60, jwksTimeoutMs: 2000 });
  });

  test.each(['AUTH_JWKS_URL', 'AUTH_ISSUER', 'AUTH_AUDIENCE'])('missing %s fails naming it', (variable) => {
    const env = { ...JWT_ENV, [variable]: undefined };
    const error = configErrorOf(readAuthConfig, env);
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(`${variable} is required`);
  });

  test('invalid values fail naming the variable', () => {
    expect(configErrorOf(readAuthConfig, { ...JWT_ENV, AUTH_JWKS_URL: 'certs.json' }).message).toBe('AUTH_JWKS_URL must be an absolute URL');
    expect(configErrorOf(readAuthConfig, { ...JWT_ENV, AUTH_JWKS_REFRESH_SECS: 'hourly' }).variable).toBe('AUTH_JWKS_REFRESH_SECS');
    expect(configErrorOf(readAuthConfig, { ...JWT_ENV, AUTH_JWKS_REFRESH_SECS: '0' }).variable).toBe('AUTH_JWKS_REFRESH_SECS');
    expect(configErrorOf(readAuthConfig, { ...JWT_ENV, AUTH_ISSUER: ' ' }).message).toMatch(/^AUTH_ISSUER must not be empty/);
  });
});

describe('forward_auth', () => {
  test('defaults: doc 01 header names, trusted proxies 127.0.0.0/8 and ::1/128', () => {
    expect(readAuthConfig({ AUTH_MODE: 'forward_auth' })).toEqual({
      mode: 'forward_auth',
      policy: {},
      headers: { subject: 'x-auth-subject', roles: 'x-auth-roles', scopes: 'x-auth-scopes', tenant: undefined, token: undefined },
      trustedProxies: [
        { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
        { address: '::1', prefix: 128, family: 'ipv6' },
      ],
    });
  });

  test('configured header names are kept in lower case', () => {
    const config = readAuthConfig({
      AUTH_MODE: 'forward_auth',
      AUTH_FORWARD_SUBJECT_HEADER: 'X-Forwarded-User',
      AUTH_FORWARD_ROLES_HEADER: 'X-Forwarded-Groups',
      AUTH_FORWARD_SCOPES_HEADER: 'X-Forwarded-Scopes',
      AUTH_FORWARD_TENANT_HEADER: 'X-Tenant',
      AUTH_FORWARD_TOKEN_HEADER: 'X-Forwarded-Access-Token',
      AUTH_FORWARD_TRUSTED_PROXIES: '10.0.0.0/8',
    });
    expect(config).toMatchObject({
      headers: {
        subject: 'x-forwarded-user',
        roles: 'x-forwarded-groups',
        scopes: 'x-forwarded-scopes',
        tenant: 'x-tenant',
        token: 'x-forwarded-access-token',
      },
      trustedProxies: [{ address: '10.0.0.0', prefix: 8, family: 'ipv4' }],
    });
  });

  test('invalid header names and CIDR blocks fail naming the variable', () => {
    expect(configErrorOf(readAuthConfig, { AUTH_MODE: 'forward_auth', AUTH_FORWARD_SUBJECT_HEADER: 'x auth' }).message).toBe('AUTH_FORWARD_SUBJECT_HEADER must be an HTTP header name');
    expect(configErrorOf(readAuthConfig, { AUTH_MODE: 'forward_auth', AUTH_FORWARD_TRUSTED_PROXIES: '10.0.0.0/40' }).variable).toBe('AUTH_FORWARD_TRUSTED_PROXIES');
  });
});

describe('none / disabled', () => {
  test('refuses to start without AUTH_ALLOW_INSECURE_NONE=true, naming that variable', () => {
    for (const env of [{ AUTH_MODE: 'none' }, { AUTH_MODE: 'disabled' }, { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'false' }]) {
      const error = configErrorOf(readAuthConfig, env);
      expect(error.variable).toBe('AUTH_ALLOW_INSECURE_NONE');
      expect(error.message).toMatch(/^AUTH_ALLOW_INSECURE_NONE must be true/);
    }
    expect(configErrorOf(readAuthConfig, { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'yes' }).message).toBe('AUTH_ALLOW_INSECURE_NONE must be true or false (got "yes")');
  });

  test('disabled is a synonym of none', () => {
    const config = readAuthConfig({ AUTH_MODE: 'disabled', AUTH_ALLOW_INSECURE_NONE: 'true' });
    expect(config.mode).toBe('none');
  });

  test('defaults: dev-anonymous, no roles, every scope, no tenant', () => {
    expect(readAuthConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true' })).toEqual({
      mode: 'none',
      policy: {},
      identity: { subject: 'dev-anonymous', roles: [], scopes: 'every', tenant: null },
    });
  });

  test('AUTH_NONE_* set the identity; set scopes are exactly those, empty means none', () => {
    const config = readAuthConfig({
      AUTH_MODE: 'none',
      AUTH_ALLOW_INSECURE_NONE: 'true',
      AUTH_NONE_SUBJECT: 'alice',
      AUTH_NONE_ROLES: 'admin, auditor',
      AUTH_NONE_SCOPES: 'records:read records:write,models:read',
      AUTH_NONE_TENANT: 'acme',
    });
    expect(config).toMatchObject({
      identity: { subject: 'alice', roles: ['admin', 'auditor'], scopes: ['records:read', 'records:write', 'models:read'], tenant: 'acme' },
    });
    const none = readAuthConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', AUTH_NONE_SCOPES: '' });
    expect(none).toMatchObject({ identity: { scopes: [] } });
  });
});

describe('AUTH_POLICY_FILE', () => {
  const none = { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true' };

  test('is read and checked at startup', () => {
    const file = policyFileWith(JSON.stringify({ 'models.validate': { scopes: ['models:validate'], roles: ['validator'] } }));
    expect(readAuthConfig({ ...none, AUTH_POLICY_FILE: file }).policy).toEqual({
      'models.validate': { scopes: ['models:validate'], roles: ['validator'] },
    });
  });

  test.each([
    ['a missing file', null, /^AUTH_POLICY_FILE cannot be read: ENOENT/],
    ['invalid JSON', '{', /^AUTH_POLICY_FILE is not valid JSON/],
    ['not an object', '[]', /^AUTH_POLICY_FILE must hold a JSON object/],
    ['an unknown operation', '{"records.delete":{}}', /^AUTH_POLICY_FILE names an unknown operation "records.delete"/],
    ['an unknown key', '{"records.read":{"scope":["x"]}}', /^AUTH_POLICY_FILE entry records.read has an unknown key "scope"/],
    ['scopes not a string array', '{"records.read":{"scopes":"x"}}', /^AUTH_POLICY_FILE entry records.read.scopes must be an array/],
  ])('%s fails naming the variable', (_case, content, message) => {
    const file = content === null ? path.join(tmpdir(), 'no-such-policy.json') : policyFileWith(content);
    expect(configErrorOf(readAuthConfig, { ...none, AUTH_POLICY_FILE: file }).message).toMatch(message);
  });
});
