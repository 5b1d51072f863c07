import { readAuthConfig } from '../../../kernel/identity/auth-config.js';
import { Authorizer } from '../../../kernel/identity/authorization.js';
import { createAuthenticator } from '../../../kernel/identity/create-authenticator.js';
import { requestFrom } from './helpers.js';

const INSECURE_NONE = { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true' };

describe('none mode', () => {
  test('every request, credentials or not, gets the fixed local identity', async () => {
    const auth = createAuthenticator(readAuthConfig(INSECURE_NONE));
    expect(auth.mode).toBe('none');
    expect(auth.credentialHeaders).toEqual([]);
    const expected = { subject: 'dev-anonymous', roles: [], scopes: 'every', tenant: null };
    await expect(auth.authenticate(requestFrom({}, null))).resolves.toEqual(expected);
    await expect(auth.authenticate(requestFrom({ authorization: 'Bearer garbage' }, '203.0.113.9'))).resolves.toEqual(expected);
  });

  test('disabled (doc 03) behaves the same', async () => {
    const auth = createAuthenticator(readAuthConfig({ ...INSECURE_NONE, AUTH_MODE: 'disabled', AUTH_NONE_SUBJECT: 'tester' }));
    await expect(auth.authenticate(requestFrom({}))).resolves.toMatchObject({ subject: 'tester' });
  });

  test('scopes unset: every scope, so records can be created and read', async () => {
    const identity = await createAuthenticator(readAuthConfig(INSECURE_NONE)).authenticate(requestFrom({}));
    const authorizer = new Authorizer();
    expect(() => authorizer.authorize(identity, 'records.create')).not.toThrow();
    expect(() => authorizer.authorize(identity, 'records.query')).not.toThrow();
    expect(() => authorizer.authorize(identity, 'admin.usage')).not.toThrow();
  });

  test('scopes set: exactly those', async () => {
    const config = readAuthConfig({ ...INSECURE_NONE, AUTH_NONE_SCOPES: 'records:read' });
    const identity = await createAuthenticator(config).authenticate(requestFrom({}));
    const authorizer = new Authorizer(config.policy);
    expect(() => authorizer.authorize(identity, 'records.read')).not.toThrow();
    expect(() => authorizer.authorize(identity, 'records.create')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    // The usage paths too: a local identity given scopes reads usage only when they name admin.usage.
    expect(() => authorizer.authorize(identity, 'admin.usage')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });
});
