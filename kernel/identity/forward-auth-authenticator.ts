import { DomainError } from '../errors.js';
import { type AddressBlocks, addressBlocks } from '../http/peer-address.js';
import type { ForwardAuthConfig } from './auth-config.js';
import type { Authenticator, CredentialSource, Identity } from './identity.js';

/**
 * Identity injected by an upstream gateway as headers (doc 01 forward_auth). Anyone can send such
 * headers, so they count only when the TCP peer is one of the trusted proxies (DECISIONS section 2).
 */
export class ForwardAuthAuthenticator implements Authenticator {
  readonly mode = 'forward_auth';
  readonly credentialHeaders: readonly string[];
  private readonly trusted: AddressBlocks;

  constructor(private readonly config: Omit<ForwardAuthConfig, 'mode' | 'policy'>) {
    const { subject, roles, scopes, tenant, token } = config.headers;
    this.credentialHeaders = [subject, roles, scopes, tenant, token].filter((name): name is string => !!name);
    this.trusted = addressBlocks(config.trustedProxies);
  }

  async authenticate(source: CredentialSource): Promise<Identity> {
    if (!this.trusted.includes(source.remoteAddress)) {
      throw new DomainError('UNAUTHORIZED', 'identity headers accepted only from trusted proxies');
    }
    const { headers } = this.config;
    const subject = source.header(headers.subject)?.trim();
    if (!subject) throw new DomainError('UNAUTHORIZED', 'authenticated subject required');
    const tenant = headers.tenant ? source.header(headers.tenant)?.trim() : undefined;
    return {
      subject,
      roles: split(source.header(headers.roles), ','),
      scopes: split(source.header(headers.scopes), /\s+/),
      tenant: tenant || null,
    };
  }
}

function split(value: string | undefined, separator: string | RegExp): string[] {
  return (value ?? '')
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
