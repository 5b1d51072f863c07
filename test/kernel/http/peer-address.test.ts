import { cidrList } from '../../../kernel/config/env.js';
import { addressBlocks, clientOf } from '../../../kernel/http/peer-address.js';

describe('clientOf: who a connection counts against (SERVER_MAX_CONNECTIONS_PER_CLIENT)', () => {
  test('an IPv4 address is its own client, as an IPv4-mapped IPv6 address too', () => {
    expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  test('every address of one IPv6 /64 is one client: a host picks any of its 2^64', () => {
    expect(clientOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2:ffff:eeee:dddd:cccc')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  test('no address (a socket already closed) is no client', () => {
    expect(clientOf(undefined)).toBeNull();
    expect(clientOf('not an address')).toBeNull();
  });
});

test('addressBlocks: IPv4 blocks match IPv4-mapped peers; IPv6 blocks match', () => {
  const blocks = addressBlocks(cidrList('10.0.0.0/8,2001:db8::/32'));
  expect(['10.1.2.3', '::ffff:10.1.2.3', '2001:db8::5'].map((address) => blocks.includes(address))).toEqual([true, true, true]);
  expect(['11.0.0.1', '2001:db9::1', undefined, ''].map((address) => blocks.includes(address))).toEqual([false, false, false, false]);
});
