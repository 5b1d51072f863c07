import type { Logger } from 'pino';
import type { AuthConfig } from './auth-config.js';
import { ForwardAuthAuthenticator } from './forward-auth-authenticator.js';
import type { Authenticator } from './identity.js';
import { JwtJwksAuthenticator } from './jwt-jwks-authenticator.js';
import { NoneAuthenticator } from './none-authenticator.js';

/** The authenticator of the configured mode; build one per process and share it. */
export function createAuthenticator(config: AuthConfig, options: { logger?: Pick<Logger, 'warn'> } = {}): Authenticator {
  switch (config.mode) {
    case 'jwt_jwks':
      return new JwtJwksAuthenticator(config, options);
    case 'forward_auth':
      return new ForwardAuthAuthenticator(config);
    case 'none':
      return new NoneAuthenticator(config.identity);
  }
}
