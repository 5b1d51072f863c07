import { boolean, ConfigError, cidrList, integer, list, oneOf, optional, required, string, url, type Env } from '../../../kernel/config/env.js';
import { configErrorOf } from '../identity/helpers.js';

describe('required / optional', () => {
  test('required: absent is an error naming the variable', () => {
    const error = configErrorOf((env) => required(env, 'DB_NAME', string), {});
    expect(error.variable).toBe('DB_NAME');
    expect(error.message).toBe('DB_NAME is required');
  });

  test('optional: absent gives the default, present is parsed (trimmed)', () => {
    expect(optional({}, 'PORT', integer(), 8080)).toBe(8080);
    expect(optional({ PORT: ' 9000 ' }, 'PORT', integer(), 8080)).toBe(9000);
    expect(optional({}, 'NAME', string)).toBeUndefined();
  });

  test('a present but invalid value never falls back to the default', () => {
    expect(configErrorOf((env) => optional(env, 'PORT', integer(), 8080), { PORT: 'eighty' }).message).toBe('PORT must be an integer (got "eighty")');
  });

  test('an empty value is present: strings reject it, lists read it as empty', () => {
    expect(configErrorOf((env) => optional(env, 'NAME', string, 'x'), { NAME: '' }).message).toMatch(/^NAME must not be empty/);
    expect(optional({ ROLES: '' }, 'ROLES', list(), ['default'])).toEqual([]);
  });

  test('aliases: the first set name wins; different values conflict', () => {
    const names = ['CORE_PORT', 'SERVER_PORT'] as const;
    expect(optional({ SERVER_PORT: '81' }, names, integer(), 8080)).toBe(81);
    expect(optional({ CORE_PORT: '82', SERVER_PORT: '82' }, names, integer(), 8080)).toBe(82);
    expect(configErrorOf((env) => optional(env, names, integer(), 8080), { CORE_PORT: '1', SERVER_PORT: '2' }).message).toBe('CORE_PORT and its alias SERVER_PORT are set to different values');
    expect(configErrorOf((env) => required(env, names, integer()), {}).message).toBe('CORE_PORT or SERVER_PORT is required');
  });

  test('messages stay on one line', () => {
    const error = configErrorOf((env) => required(env, 'MODE', oneOf(['a', 'b'])), { MODE: 'x\ny' });
    expect(error.message).not.toMatch(/\n/);
    expect(error).toBeInstanceOf(ConfigError);
  });
});

describe('parsers', () => {
  const read = <T>(parse: (value: string) => T, value: string): T => required({ V: value } as Env, 'V', parse);
  const failure = (parse: (value: string) => unknown, value: string): string => configErrorOf((env) => required(env, 'V', parse), { V: value }).message;

  test('boolean: exactly true or false', () => {
    expect(read(boolean, 'true')).toBe(true);
    expect(read(boolean, 'false')).toBe(false);
    for (const value of ['TRUE', '1', 'yes', 'on', '']) expect(failure(boolean, value)).toMatch(/^V must be true or false/);
  });

  test('integer: digits only, within bounds', () => {
    const port = integer({ min: 1, max: 65535 });
    expect(read(port, '443')).toBe(443);
    for (const value of ['0', '65536', '1.5', '1e3', '0x10', '', '12abc']) {
      expect(failure(port, value)).toMatch(/^V must be an integer from 1 to 65535/);
    }
    expect(read(integer(), '-5')).toBe(-5);
    expect(failure(integer({ min: 1 }), '0')).toBe('V must be an integer of at least 1 (got "0")');
    expect(failure(integer({ max: 9 }), '10')).toBe('V must be an integer of at most 9 (got "10")');
  });

  test('url: absolute, allowed protocol, value not echoed', () => {
    expect(read(url(), 'https://idp.example/certs').href).toBe('https://idp.example/certs');
    expect(failure(url(), 'not a url')).toBe('V must be an absolute URL');
    expect(failure(url(), 'ftp://user:secret@host/x')).toBe('V must be a URL with protocol http: or https:');
    expect(read(url(['postgresql:']), 'postgresql://db/x').protocol).toBe('postgresql:');
  });

  test('oneOf: exact values', () => {
    expect(read(oneOf(['info', 'debug']), 'debug')).toBe('debug');
    expect(failure(oneOf(['info', 'debug']), 'DEBUG')).toBe('V must be one of info, debug (got "DEBUG")');
  });

  test('list: split, trimmed, empty items dropped', () => {
    expect(read(list(), 'a, b,,c ')).toEqual(['a', 'b', 'c']);
    expect(read(list(/\s+/), 'x  y')).toEqual(['x', 'y']);
  });

  test('cidrList: IPv4, IPv6, bare addresses as hosts', () => {
    expect(read(cidrList, '127.0.0.0/8, ::1/128,10.1.2.3,2001:db8::/32')).toEqual([
      { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '::1', prefix: 128, family: 'ipv6' },
      { address: '10.1.2.3', prefix: 32, family: 'ipv4' },
      { address: '2001:db8::', prefix: 32, family: 'ipv6' },
    ]);
    expect(failure(cidrList, '10.0.0.0/33')).toBe('V has an invalid prefix length in "10.0.0.0/33" (0 to 32)');
    expect(failure(cidrList, '::/129')).toMatch(/invalid prefix length/);
    expect(failure(cidrList, '300.0.0.1/8')).toBe('V has an invalid CIDR block "300.0.0.1/8"');
    expect(failure(cidrList, 'localhost')).toMatch(/invalid CIDR block/);
    expect(failure(cidrList, '10.0.0.0/8/1')).toMatch(/invalid CIDR block/);
    expect(failure(cidrList, '10.0.0.0/x')).toMatch(/invalid prefix length/);
  });
});
