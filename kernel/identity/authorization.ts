import { readFileSync } from 'node:fs';
import { DomainError } from '../errors.js';
import { InvalidValue, type Parser } from '../config/env.js';
import type { Identity } from './identity.js';
import { isJsonObject } from '../json.js';

/** What an operation needs beyond authentication: every listed scope and every listed role. */
export interface Requirement {
  scopes?: readonly string[];
  roles?: readonly string[];
}

/**
 * The operations every entry point (REST route, GraphQL resolver) authorizes, whichever path leads
 * to them, with their built-in requirements (DECISIONS section 2): creating a record needs
 * `records:write`, reading or querying records `records:read`, the gateway's usage paths the scope
 * `admin.usage` (usage tells which clients run what: no tenant's user reads it by default; in the
 * none mode the local identity has it unless AUTH_NONE_SCOPES leaves it out); the rest needs
 * authentication only.
 * `AUTH_POLICY_FILE` can add requirements to any of these names. A new operation is one line here.
 */
const BUILT_IN = {
  'models.list': {}, // GET /models
  'models.artifact': {}, // GET …/schema, …/shacl, …/owl
  'models.validate': {}, // POST …:validate
  'records.create': { scopes: ['records:write'] }, // POST …:create, POST /records
  'records.read': { scopes: ['records:read'] }, // GET /records/{id}, a record through GraphQL
  'records.query': { scopes: ['records:read'] }, // POST …:query, POST /records/query
  'records.grant': {}, // add or remove a read grant on one's own record (GraphQL)
  'indicators.read': {}, // indicator specifications / questionnaire (GraphQL)
  'indicators.compute': {},
  'impact.capabilities': {},
  'impact.compute': {},
  'service.openapi': {}, // the core's GET /openapi.json
  'admin.version': {},
  'admin.models_count': {},
  'admin.ready': {},
  'admin.status': {},
  'admin.metrics': {},
  'admin.registry_refresh': {},
  'admin.usage': { scopes: ['admin.usage'] }, // the gateway's GET /admin/usage, /admin/usage/fields, /admin/supergraph, /admin/supergraph/versions
} satisfies Record<string, Requirement>;

export type Operation = keyof typeof BUILT_IN;
export const OPERATIONS = Object.keys(BUILT_IN) as Operation[];

/** Requirements added by `AUTH_POLICY_FILE`, per operation. */
export type AuthPolicy = Partial<Record<Operation, Requirement>>;

export function hasScope(identity: Identity, scope: string): boolean {
  return identity.scopes === 'every' || identity.scopes.includes(scope);
}

export class Authorizer {
  constructor(private readonly policy: AuthPolicy = {}) {}

  /** The built-in requirement of the operation plus what the policy adds. */
  requirement(operation: Operation): { scopes: string[]; roles: string[] } {
    const builtIn: Requirement = BUILT_IN[operation];
    const added = this.policy[operation] ?? {};
    return {
      scopes: unique([...(builtIn.scopes ?? []), ...(added.scopes ?? [])]),
      roles: unique([...(builtIn.roles ?? []), ...(added.roles ?? [])]),
    };
  }

  /** Throws DomainError FORBIDDEN naming what the caller lacks (names of scopes and roles only). */
  authorize(identity: Identity, operation: Operation): void {
    const { scopes, roles } = this.requirement(operation);
    const missingScopes = scopes.filter((scope) => !hasScope(identity, scope));
    const missingRoles = roles.filter((role) => !identity.roles.includes(role));
    if (missingScopes.length === 0 && missingRoles.length === 0) return;
    const missing = [...missingScopes.map((s) => `scope ${s}`), ...missingRoles.map((r) => `role ${r}`)];
    throw new DomainError('FORBIDDEN', `${operation} requires ${missing.join(', ')}`, {
      operation,
      missing_scopes: missingScopes,
      missing_roles: missingRoles,
    });
  }
}

/** Env parser for `AUTH_POLICY_FILE`: reads and checks the file at startup. */
export const policyFile: Parser<AuthPolicy> = (path) => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InvalidValue(`cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'read error'} (${path})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InvalidValue(`is not valid JSON (${path})`);
  }
  return parsePolicy(json);
};

/** `{"<operation>": {"scopes"?: [..], "roles"?: [..]}}`; unknown operations are errors (typos). */
function parsePolicy(json: unknown): AuthPolicy {
  if (!isJsonObject(json)) throw new InvalidValue('must hold a JSON object: operation → {scopes, roles}');
  const policy: AuthPolicy = {};
  for (const [operation, entry] of Object.entries(json)) {
    if (!(OPERATIONS as string[]).includes(operation)) {
      throw new InvalidValue(`names an unknown operation ${JSON.stringify(operation)} (known: ${OPERATIONS.join(', ')})`);
    }
    policy[operation as Operation] = parseRequirement(operation, entry);
  }
  return policy;
}

function parseRequirement(operation: string, entry: unknown): Requirement {
  if (!isJsonObject(entry)) throw new InvalidValue(`entry ${operation} must be an object {scopes?, roles?}`);
  const extra = Object.keys(entry).find((key) => key !== 'scopes' && key !== 'roles');
  if (extra !== undefined) throw new InvalidValue(`entry ${operation} has an unknown key ${JSON.stringify(extra)}`);
  return {
    scopes: names(operation, 'scopes', entry.scopes),
    roles: names(operation, 'roles', entry.roles),
  };
}

function names(operation: string, key: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.trim() !== '')) {
    throw new InvalidValue(`entry ${operation}.${key} must be an array of non-empty strings`);
  }
  return value.map((item: string) => item.trim());
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
