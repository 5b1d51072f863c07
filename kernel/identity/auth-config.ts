import { boolean, ConfigError, cidrList, integer, InvalidValue, list, oneOf, optional, required, string, url, type Cidr, type Env, type Parser } from '../config/env.js';
import { policyFile, type AuthPolicy } from './authorization.js';
import type { Identity } from './identity.js';

/** Identity configuration (DECISIONS section 2, doc 01 "Authentication"), validated at startup. */
export type AuthConfig = JwtJwksConfig | ForwardAuthConfig | NoneConfig;

interface CommonConfig {
  /** Requirements added by `AUTH_POLICY_FILE` (empty when unset). */
  policy: AuthPolicy;
}

export interface JwtJwksConfig extends CommonConfig {
  mode: 'jwt_jwks';
  jwksUrl: URL;
  issuer: string;
  audience: string;
  /** How long a fetched key set is used before it is fetched again. */
  jwksRefreshSecs: number;
  /** Timeout of one key set fetch (`AUTH_JWKS_TIMEOUT_MS`, a project decision: 5000). */
  jwksTimeoutMs: number;
}

export interface ForwardAuthConfig extends CommonConfig {
  mode: 'forward_auth';
  /** Lower-case header names; tenant and token headers are optional. */
  headers: { subject: string; roles: string; scopes: string; tenant?: string; token?: string };
  trustedProxies: Cidr[];
}

export interface NoneConfig extends CommonConfig {
  mode: 'none';
  identity: Identity;
}

export const DEFAULT_TRUSTED_PROXIES = '127.0.0.0/8,::1/128';

/** Throws ConfigError naming the variable when one is missing or invalid. */
export function readAuthConfig(env: Env): AuthConfig {
  const mode = optional(env, 'AUTH_MODE', oneOf(['jwt_jwks', 'forward_auth', 'none', 'disabled']), 'jwt_jwks');
  const common = { policy: optional(env, 'AUTH_POLICY_FILE', policyFile, {}) };
  switch (mode) {
    case 'jwt_jwks':
      return { mode, ...common, ...readJwtJwks(env) };
    case 'forward_auth':
      return { mode, ...common, ...readForwardAuth(env) };
    case 'none':
    case 'disabled': // doc 03's name for the same mode
      return { mode: 'none', ...common, identity: readNoneIdentity(env) };
  }
}

function readJwtJwks(env: Env): Omit<JwtJwksConfig, 'mode' | 'policy'> {
  return {
    jwksUrl: required(env, 'AUTH_JWKS_URL', url()),
    issuer: required(env, 'AUTH_ISSUER', string),
    audience: required(env, 'AUTH_AUDIENCE', string),
    jwksRefreshSecs: optional(env, 'AUTH_JWKS_REFRESH_SECS', integer({ min: 1, max: 30 * 86400 }), 3600),
    jwksTimeoutMs: optional(env, 'AUTH_JWKS_TIMEOUT_MS', integer({ min: 100, max: 60_000 }), 5000),
  };
}

function readForwardAuth(env: Env): Omit<ForwardAuthConfig, 'mode' | 'policy'> {
  return {
    headers: {
      subject: optional(env, 'AUTH_FORWARD_SUBJECT_HEADER', headerName, 'x-auth-subject'),
      roles: optional(env, 'AUTH_FORWARD_ROLES_HEADER', headerName, 'x-auth-roles'),
      scopes: optional(env, 'AUTH_FORWARD_SCOPES_HEADER', headerName, 'x-auth-scopes'),
      tenant: optional(env, 'AUTH_FORWARD_TENANT_HEADER', headerName),
      token: optional(env, 'AUTH_FORWARD_TOKEN_HEADER', headerName),
    },
    trustedProxies: optional(env, 'AUTH_FORWARD_TRUSTED_PROXIES', cidrList, cidrList(DEFAULT_TRUSTED_PROXIES)),
  };
}

/** The fixed local identity; refuses to start unless the operator said `AUTH_ALLOW_INSECURE_NONE=true`. */
function readNoneIdentity(env: Env): Identity {
  if (optional(env, 'AUTH_ALLOW_INSECURE_NONE', boolean, false) !== true) {
    throw new ConfigError('AUTH_ALLOW_INSECURE_NONE', 'must be true to start with AUTH_MODE=none/disabled (every request then gets a fixed identity)');
  }
  return {
    subject: optional(env, 'AUTH_NONE_SUBJECT', string, 'dev-anonymous'),
    roles: optional(env, 'AUTH_NONE_ROLES', list(','), []),
    // Unset: every scope. Set: exactly those (an empty value grants none).
    scopes: optional<readonly string[] | 'every'>(env, 'AUTH_NONE_SCOPES', list(/[\s,]+/), 'every'),
    tenant: optional<string | null>(env, 'AUTH_NONE_TENANT', string, null),
  };
}

/** An HTTP header field name (RFC 9110 token), kept in lower case as node presents headers. */
const headerName: Parser<string> = (value) => {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) throw new InvalidValue('must be an HTTP header name');
  return value.toLowerCase();
};
