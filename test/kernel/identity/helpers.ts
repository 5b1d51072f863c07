import { ConfigError, type Env } from '../../../kernel/config/env.js';
import type { CredentialSource } from '../../../kernel/identity/identity.js';

/** A request as an authenticator sees it: lower-case header names and the TCP peer (null: none known). */
export function requestFrom(headers: Record<string, string>, remoteAddress: string | null = '127.0.0.1'): CredentialSource {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { header: (name) => lower[name], remoteAddress: remoteAddress ?? undefined };
}

export function bearer(token: string, remoteAddress?: string): CredentialSource {
  return requestFrom({ authorization: `Bearer ${token}` }, remoteAddress);
}

/** The ConfigError thrown by `read(env)`; fails the test when nothing (or something else) is thrown. */
export function configErrorOf(read: (env: Env) => unknown, env: Env): ConfigError {
  try {
    read(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
