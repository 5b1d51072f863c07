import { createLocalJWKSet, errors, jwtVerify } from 'jose';
import type { CryptoKey, FlattenedJWSInput, JSONWebKeySet, JWSHeaderParameters, JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { DomainError } from '../errors.js';
import type { JwtJwksConfig } from './auth-config.js';
import type { Authenticator, CredentialSource, Identity } from './identity.js';

/** An unknown `kid` refetches the key set at most once per this window (DECISIONS section 2). */
export const KID_REFETCH_COOLDOWN_MS = 30_000;
export const CLOCK_TOLERANCE_SECS = 30;
/** Asymmetric only: `none` and HS* are rejected before any key is looked up. */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

type KeyLookup = ReturnType<typeof createLocalJWKSet>;

export interface RemoteKeySetOptions {
  url: URL;
  /** A fetched key set is used this long before it is fetched again. */
  maxAgeMs: number;
  timeoutMs: number;
  /** Minimum time between two fetch attempts, unless the key set has expired. Tests shorten it. */
  cooldownMs?: number;
  /** Tests move time forward with their own clock. */
  now?: () => number;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * The issuer's key set, fetched over HTTP and cached. jose's `createRemoteJWKSet` (cacheMaxAge,
 * cooldownDuration 30 s) is close but differs in two ways that break the contract, hence this class
 * (jose still selects the keys, through `createLocalJWKSet`):
 * - its cooldown counts from the last *successful* fetch, so while the key set is down every token
 *   with an unknown `kid` triggers a fetch; here every attempt starts the cooldown;
 * - once `cacheMaxAge` has passed it throws if the refresh fails; here the cached keys keep
 *   verifying, and only a token that no cached key fits gets AUTH_UNAVAILABLE.
 */
export class RemoteKeySet {
  private keys: KeyLookup | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private lastAttemptFailed = false;
  private pending: Promise<void> | undefined;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(private readonly options: RemoteKeySetOptions) {
    this.cooldownMs = options.cooldownMs ?? KID_REFETCH_COOLDOWN_MS;
    this.now = options.now ?? Date.now;
  }

  /** jose's key resolver: the verification key for the token's header, or a DomainError. */
  readonly resolve = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (this.now() - this.fetchedAt >= this.options.maxAgeMs) await this.fetchUnlessCoolingDown(!this.lastAttemptFailed);
    const cached = await this.lookup(header, token);
    if (cached) return cached;
    const fetching = this.fetchUnlessCoolingDown();
    if (fetching) {
      await fetching;
      const refetched = await this.lookup(header, token);
      if (refetched) return refetched;
    }
    if (this.lastAttemptFailed) throw new DomainError('AUTH_UNAVAILABLE', 'identity provider key set unavailable');
    throw invalidToken();
  };

  private async lookup(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey | undefined> {
    if (!this.keys) return undefined;
    try {
      return await this.keys(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) return undefined;
      throw error;
    }
  }

  /**
   * Joins a fetch in flight, starts one if the cooldown allows it, else returns undefined. An expired
   * key set whose last fetch succeeded is refetched at once (`AUTH_JWKS_REFRESH_SECS` may be shorter
   * than the cooldown); after a failed fetch the cooldown holds, so an outage is not hammered.
   */
  private fetchUnlessCoolingDown(skipCooldown = false): Promise<void> | undefined {
    if (this.pending) return this.pending;
    if (!skipCooldown && this.now() - this.attemptedAt < this.cooldownMs) return undefined;
    this.attemptedAt = this.now();
    this.pending = this.fetchKeys().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchKeys(): Promise<void> {
    try {
      const response = await fetch(this.options.url, {
        headers: { accept: 'application/jwk-set+json, application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel(); // frees the connection
        return this.failed(`status ${response.status}`);
      }
      // createLocalJWKSet checks the shape and throws JWKSInvalid on anything else.
      this.keys = createLocalJWKSet((await response.json()) as JSONWebKeySet);
      this.fetchedAt = this.now();
      this.lastAttemptFailed = false;
    } catch (error) {
      this.failed(errorName(error));
    }
  }

  private failed(reason: string): void {
    this.lastAttemptFailed = true;
    this.options.logger?.warn({ jwks_url: this.options.url.origin, reason }, 'key set fetch failed');
  }
}

export interface JwtJwksOptions {
  /** Key set tuning for tests (cooldown, clock); defaults follow the config. */
  keySet?: Pick<RemoteKeySetOptions, 'cooldownMs' | 'now'>;
  logger?: Pick<Logger, 'warn'>;
}

/** Bearer JWTs verified against the issuer's key set (DECISIONS section 2, doc 01 jwt_jwks). */
export class JwtJwksAuthenticator implements Authenticator {
  readonly mode = 'jwt_jwks';
  readonly credentialHeaders = ['authorization'];
  private readonly keySet: RemoteKeySet;

  constructor(
    private readonly config: Omit<JwtJwksConfig, 'mode' | 'policy'>,
    options: JwtJwksOptions = {},
  ) {
    this.keySet = new RemoteKeySet({
      url: config.jwksUrl,
      maxAgeMs: config.jwksRefreshSecs * 1000,
      timeoutMs: config.jwksTimeoutMs,
      logger: options.logger,
      ...options.keySet,
    });
  }

  async authenticate(source: CredentialSource): Promise<Identity> {
    const token = bearerToken(source.header('authorization'));
    try {
      const { payload } = await jwtVerify(token, this.keySet.resolve, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: ALLOWED_ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_SECS,
      });
      return identityOf(payload);
    } catch (error) {
      // jose's messages may quote claim values from the token: only our own errors pass through.
      if (error instanceof DomainError) throw error;
      throw invalidToken();
    }
  }
}

function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer +([^\s]+) *$/i.exec(authorization ?? '');
  if (!match?.[1]) throw new DomainError('UNAUTHORIZED', 'bearer token required');
  return match[1];
}

function identityOf(claims: JWTPayload): Identity {
  if (typeof claims.sub !== 'string' || claims.sub.trim() === '') throw invalidToken();
  return {
    subject: claims.sub,
    roles: strings((claims.realm_access as { roles?: unknown } | undefined)?.roles),
    scopes: [...new Set([...spaceSeparated(claims.scope), ...spaceSeparated(claims.scp), ...strings(claims.scp)])],
    tenant: tenantOf(claims.tenant_id) ?? tenantOf(claims.tenant),
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item !== '') : [];
}

function spaceSeparated(value: unknown): string[] {
  return typeof value === 'string' ? value.split(/\s+/).filter((item) => item !== '') : [];
}

/** A non-blank string, or an integer id as IdPs sometimes map it. */
function tenantOf(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (Number.isSafeInteger(value)) return String(value);
  return null;
}

function invalidToken(): DomainError {
  return new DomainError('UNAUTHORIZED', 'invalid bearer token');
}

/** A log-safe reason: errno codes (ECONNREFUSED), jose codes and error names are fixed strings. */
function errorName(error: unknown): string {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code === 'string') return code;
  if (error instanceof errors.JOSEError) return error.code;
  return error instanceof Error ? error.name : 'unknown';
}
