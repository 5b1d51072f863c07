import type { IncomingMessage } from 'node:http';
import { DomainError } from '../errors.js';

/** The authenticated caller, whatever the mode that produced it (DECISIONS section 2). */
export interface Identity {
  subject: string;
  roles: readonly string[];
  /**
   * The granted scopes, or `'every'`: only the none mode's local identity when `AUTH_NONE_SCOPES` is
   * unset, which satisfies any scope requirement. Use `hasScope` (authorization.ts) to test one.
   */
  scopes: readonly string[] | 'every';
  tenant: string | null;
}

/** What an authenticator needs from a request: header lookup (lower-case names) and the peer. */
export interface CredentialSource {
  /** The header's value; a header sent more than once is UNAUTHORIZED, never merged (see `credentialSourceOf`). */
  header(name: string): string | undefined;
  remoteAddress: string | undefined;
}

export type AuthMode = 'jwt_jwks' | 'forward_auth' | 'none';

export interface Authenticator {
  readonly mode: AuthMode;
  /** Resolves the identity or throws DomainError UNAUTHORIZED / AUTH_UNAVAILABLE. */
  authenticate(source: CredentialSource): Promise<Identity>;
  /** Header names (lower case) carrying the caller's credentials, forwarded to remote subgraphs. */
  readonly credentialHeaders: readonly string[];
}

/**
 * The credential source of a node HTTP request (express's `req` included). Node joins a repeated
 * header into one value ("A, B"), which for an identity header would be an identity nobody sent (the
 * tenant "A, B"), and keeps only the first of a repeated `Authorization`: a credential header sent
 * more than once is refused as UNAUTHORIZED instead.
 */
export function credentialSourceOf(request: IncomingMessage): CredentialSource {
  return {
    header(name) {
      const values = request.headersDistinct[name.toLowerCase()];
      if (values && values.length > 1) throw new DomainError('UNAUTHORIZED', `the ${name} header was sent more than once`);
      return values?.[0];
    },
    remoteAddress: request.socket.remoteAddress,
  };
}
