import { isIP } from 'node:net';

/**
 * Configuration from environment variables (DECISIONS section 1): a variable that is present but
 * invalid fails startup with one line naming it; nothing falls back silently to a default.
 *
 * A variable is "present" when it is defined, even as an empty string: `FOO=` is an empty value, not
 * an absent one, so `required`/`optional` hand it to the parser (strings reject it, lists read it as
 * an empty list). Values are trimmed before parsing.
 *
 * Usage: `optional(env, 'AUTH_JWKS_REFRESH_SECS', integer({ min: 1 }), 3600)`.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** Startup configuration failure; `message` is one line that starts with the variable's name. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable} ${reason}`.replace(/\s*[\r\n]+\s*/g, ' '));
    this.name = 'ConfigError';
  }
}

/** Thrown by parsers; `required`/`optional` turn it into a ConfigError naming the variable. */
export class InvalidValue extends Error {}

/** Turns a present, trimmed value into T, or throws InvalidValue("must be …"). */
export type Parser<T> = (value: string) => T;

/** A variable name, or the canonical name followed by its aliases (e.g. `['CORE_PORT', 'SERVER_PORT']`). */
export type VariableName = string | readonly [string, ...string[]];

export function required<T>(env: Env, name: VariableName, parse: Parser<T>): T {
  const found = lookup(env, name);
  if (found === undefined) throw new ConfigError(names(name).join(' or '), 'is required');
  return parseAs(found.variable, found.value, parse);
}

export function optional<T>(env: Env, name: VariableName, parse: Parser<T>, fallback: T): T;
export function optional<T>(env: Env, name: VariableName, parse: Parser<T>): T | undefined;
export function optional<T>(env: Env, name: VariableName, parse: Parser<T>, fallback?: T): T | undefined {
  const found = lookup(env, name);
  return found === undefined ? fallback : parseAs(found.variable, found.value, parse);
}

/** A non-blank string. */
export const string: Parser<string> = (value) => {
  if (value === '') throw new InvalidValue('must not be empty (unset it to use the default)');
  return value;
};

/** Exactly `true` or `false`: `1`, `yes` or `TRUE` are errors rather than a guess. */
export const boolean: Parser<boolean> = (value) => {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidValue(`must be true or false (got ${quote(value)})`);
};

export function integer({ min, max }: { min?: number; max?: number } = {}): Parser<number> {
  const range = min === undefined ? (max === undefined ? '' : ` of at most ${max}`) : max === undefined ? ` of at least ${min}` : ` from ${min} to ${max}`;
  return (value) => {
    const parsed = /^[+-]?\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < (min ?? -Infinity) || parsed > (max ?? Infinity)) {
      throw new InvalidValue(`must be an integer${range} (got ${quote(value)})`);
    }
    return parsed;
  };
}

/** An absolute URL with one of the protocols. The value is not echoed: URLs may carry credentials. */
export function url(protocols: readonly string[] = ['http:', 'https:']): Parser<URL> {
  return (value) => {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new InvalidValue('must be an absolute URL');
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new InvalidValue(`must be a URL with protocol ${protocols.join(' or ')}`);
    }
    return parsed;
  };
}

/** One of a fixed set of values, compared exactly. */
export function oneOf<const T extends string>(allowed: readonly T[]): Parser<T> {
  return (value) => {
    if ((allowed as readonly string[]).includes(value)) return value as T;
    throw new InvalidValue(`must be one of ${allowed.join(', ')} (got ${quote(value)})`);
  };
}

/** Items split on the separator, trimmed, empty items dropped; an empty value is an empty list. */
export function list(separator: string | RegExp = ','): Parser<string[]> {
  return (value) =>
    value
      .split(separator)
      .map((item) => item.trim())
      .filter((item) => item !== '');
}

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Comma-separated `address/prefix` blocks (IPv4 or IPv6); a bare address is a single host. */
export const cidrList: Parser<Cidr[]> = (value) => list(',')(value).map(cidr);

function cidr(block: string): Cidr {
  const [address = '', prefixText, ...rest] = block.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) throw new InvalidValue(`has an invalid CIDR block ${quote(block)}`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const maxPrefix = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? maxPrefix : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= maxPrefix)) {
    throw new InvalidValue(`has an invalid prefix length in ${quote(block)} (0 to ${maxPrefix})`);
  }
  return { address, prefix, family };
}

function names(name: VariableName): readonly string[] {
  return typeof name === 'string' ? [name] : name;
}

/** The first set variable among a name and its aliases; aliases set to different values conflict. */
function lookup(env: Env, name: VariableName): { variable: string; value: string } | undefined {
  const set = names(name).filter((variable) => env[variable] !== undefined);
  const [first, ...others] = set;
  if (first === undefined) return undefined;
  const value = (env[first] as string).trim();
  const conflicting = others.find((other) => (env[other] as string).trim() !== value);
  if (conflicting !== undefined) throw new ConfigError(first, `and its alias ${conflicting} are set to different values`);
  return { variable: first, value };
}

function parseAs<T>(variable: string, value: string, parse: Parser<T>): T {
  try {
    return parse(value);
  } catch (error) {
    if (error instanceof InvalidValue) throw new ConfigError(variable, error.message);
    throw error;
  }
}

/** Echoes a (non-secret) value in a message: quoted, escaped onto one line, shortened. */
function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}
