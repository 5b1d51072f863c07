import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Cidr } from '../config/env.js';

/** Address blocks (a setting's CIDR list), asked whether a TCP peer is in one of them. */
export interface AddressBlocks {
  /** IPv4, IPv6 and IPv4-mapped IPv6 (`::ffff:127.0.0.1`, as dual-stack sockets report IPv4 peers); false for no address. */
  includes(address: string | undefined): boolean;
}

export function addressBlocks(cidrs: readonly Cidr[]): AddressBlocks {
  const list = new BlockList();
  for (const { address, prefix, family } of cidrs) list.addSubnet(address, prefix, family);
  return {
    includes(address) {
      const version = address ? isIP(address) : 0;
      if (!address || version === 0) return false;
      return list.check(address, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** The 16-bit parts of an IPv6 address that name one client: a site gets a /64 and picks any address in it. */
const IPV6_CLIENT_PARTS = 4;

/**
 * Who is connecting, for a per-client count: an IPv4 address (an IPv4-mapped IPv6 address is its
 * IPv4 address), or an IPv6 address's /64, since one host may use any of the 2^64 addresses of its
 * network. Null for a peer without an address (a socket already closed).
 */
export function clientOf(address: string | undefined): string | null {
  if (!address || !ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  if (parsed instanceof ipaddr.IPv4) return parsed.toString();
  const network = parsed.parts.map((part, i) => (i < IPV6_CLIENT_PARTS ? part : 0));
  return `${new ipaddr.IPv6(network).toString()}/64`;
}
