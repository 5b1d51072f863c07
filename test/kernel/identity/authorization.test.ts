import { DomainError } from '../../../kernel/errors.js';
import { Authorizer, hasScope, OPERATIONS, type Operation } from '../../../kernel/identity/authorization.js';
import type { Identity } from '../../../kernel/identity/identity.js';

const caller = (scopes: Identity['scopes'], roles: string[] = []): Identity => ({ subject: 'u', roles, scopes, tenant: null });

function forbidden(authorize: () => void): DomainError {
  try {
    authorize();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected FORBIDDEN');
}

describe('built-in requirements', () => {
  const authorizer = new Authorizer();

  test('creating a record needs records:write; reading and querying need records:read', () => {
    expect(authorizer.requirement('records.create')).toEqual({ scopes: ['records:write'], roles: [] });
    expect(authorizer.requirement('records.read')).toEqual({ scopes: ['records:read'], roles: [] });
    expect(authorizer.requirement('records.query')).toEqual({ scopes: ['records:read'], roles: [] });
    expect(() => authorizer.authorize(caller(['records:write']), 'records.create')).not.toThrow();
    expect(() => authorizer.authorize(caller(['records:read']), 'records.query')).not.toThrow();
  });

  test('the usage paths need the scope admin.usage, whatever else the caller holds', () => {
    expect(authorizer.requirement('admin.usage')).toEqual({ scopes: ['admin.usage'], roles: [] });
    expect(forbidden(() => authorizer.authorize(caller(['records:read', 'records:write']), 'admin.usage')).message).toBe('admin.usage requires scope admin.usage');
    expect(() => authorizer.authorize(caller(['admin.usage']), 'admin.usage')).not.toThrow();
  });

  test('every other operation needs authentication only', () => {
    const others = OPERATIONS.filter((operation) => (!operation.startsWith('records.') || operation === 'records.grant') && operation !== 'admin.usage');
    expect(others).toContain('models.validate');
    for (const operation of others) expect(() => authorizer.authorize(caller([]), operation)).not.toThrow();
  });

  test('a missing scope is FORBIDDEN naming the operation and the scope, nothing else', () => {
    const error = forbidden(() => authorizer.authorize(caller(['records:read']), 'records.create'));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toBe('records.create requires scope records:write');
    expect(error.details).toEqual({ operation: 'records.create', missing_scopes: ['records:write'], missing_roles: [] });
  });

  test('"every scope" (none mode, AUTH_NONE_SCOPES unset) satisfies any scope requirement', () => {
    for (const operation of OPERATIONS) expect(() => authorizer.authorize(caller('every'), operation)).not.toThrow();
    expect(hasScope(caller('every'), 'anything:at-all')).toBe(true);
    expect(hasScope(caller(['a']), 'b')).toBe(false);
  });
});

describe('policy file requirements', () => {
  const authorizer = new Authorizer({
    'models.validate': { scopes: ['models:validate'] },
    'records.create': { roles: ['editor'] },
    'admin.registry_refresh': { roles: ['admin'] },
  });

  test('add to the built-in ones', () => {
    expect(authorizer.requirement('records.create')).toEqual({ scopes: ['records:write'], roles: ['editor'] });
    expect(() => authorizer.authorize(caller(['records:write'], ['editor']), 'records.create')).not.toThrow();
    expect(forbidden(() => authorizer.authorize(caller(['records:write']), 'records.create')).message).toBe('records.create requires role editor');
  });

  test('turn an authentication-only operation into a guarded one', () => {
    expect(forbidden(() => authorizer.authorize(caller([]), 'models.validate')).code).toBe('FORBIDDEN');
    expect(() => authorizer.authorize(caller(['models:validate']), 'models.validate')).not.toThrow();
    const error = forbidden(() => authorizer.authorize(caller('every'), 'admin.registry_refresh'));
    expect(error.details).toEqual({ operation: 'admin.registry_refresh', missing_scopes: [], missing_roles: ['admin'] });
  });

  test('operations without a policy entry keep their built-in requirement', () => {
    const untouched: Operation = 'records.query';
    expect(authorizer.requirement(untouched)).toEqual({ scopes: ['records:read'], roles: [] });
  });
});
