import { BlockList, isIP } from 'node:net';
import { DomainError } from '../errors.js';
import type { Cidr } from '../config/env.js';
import type { ForwardAuthConfig } from './auth-config.js';
import type { Authenticator, CredentialSource, Identity } from './identity.js';

/**
 * Identity injected by an upstream gateway as headers (doc 01 forward_auth). Anyone can send such
 * headers, so they count only when the TCP peer is one of the trusted proxies (DECISIONS section 2).
 */
export class ForwardAuthAuthenticator implements Authenticator {
  readonly mode = 'forward_auth';
  readonly credentialHeaders: readonly string[];
  private readonly trusted: BlockList;

  constructor(private readonly config: Omit<ForwardAuthConfig, 'mode' | 'policy'>) {
    const { subject, roles, scopes, tenant, token } = config.headers;
    this.credentialHeaders = [subject, roles, scopes, tenant, token].filter((name): name is string => !!name);
    this.trusted = blockListOf(config.trustedProxies);
  }

  async authenticate(source: CredentialSource): Promise<Identity> {
    if (!isTrustedPeer(this.trusted, source.remoteAddress)) {
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

function blockListOf(cidrs: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const { address, prefix, family } of cidrs) list.addSubnet(address, prefix, family);
  return list;
}

/** IPv4, IPv6 and IPv4-mapped IPv6 (`::ffff:127.0.0.1`, as dual-stack sockets report IPv4 peers). */
function isTrustedPeer(trusted: BlockList, address: string | undefined): boolean {
  const version = address ? isIP(address) : 0;
  if (!address || version === 0) return false;
  return trusted.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

function split(value: string | undefined, separator: string | RegExp): string[] {
  return (value ?? '')
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
