import type { NoneConfig } from './auth-config.js';
import type { Authenticator, Identity } from './identity.js';

/**
 * No authentication: every request gets the fixed local identity from `AUTH_NONE_*` (doc 01 none,
 * doc 03 disabled). Configuration refuses this mode without `AUTH_ALLOW_INSECURE_NONE=true`.
 */
export class NoneAuthenticator implements Authenticator {
  readonly mode = 'none';
  readonly credentialHeaders: readonly string[] = [];

  constructor(private readonly identity: NoneConfig['identity']) {}

  async authenticate(): Promise<Identity> {
    return this.identity;
  }
}
