import type { Authenticator, CredentialSource, Identity } from '../identity/identity.js';
import type { Authorizer, Operation } from '../identity/authorization.js';

/** Who may do what: the process's authenticator (the mode) and authorizer (scopes, roles, policy). */
export interface AccessControl {
  authenticator: Authenticator;
  authorizer: Authorizer;
}

/**
 * What every resolver receives. The identity is resolved lazily and once: public fields (the
 * liveness probe) never authenticate, every other root field does (see `authChecker`).
 */
export interface RequestContext {
  requestId: string;
  identity(): Promise<Identity>;
  /** Authenticates, then checks the operation's requirements (FORBIDDEN when they are not met). */
  authorize(operation: Operation): Promise<Identity>;
  /** The caller's credential headers (and `authorization`), forwarded by the gateway to subgraphs that run elsewhere. */
  credentials: Record<string, string>;
}

/**
 * The caller's bearer token reaches the resolvers whatever this process's own auth mode: the
 * indicator service forwards it to the core (doc 02), which may verify callers when we do not.
 */
const ALWAYS_FORWARDED = ['authorization'];

export function requestContext(access: AccessControl, source: CredentialSource, requestId: string): RequestContext {
  let identity: Promise<Identity> | undefined;
  const credentials: Record<string, string> = {};
  for (const name of new Set([...ALWAYS_FORWARDED, ...access.authenticator.credentialHeaders])) {
    const value = source.header(name);
    if (value !== undefined) credentials[name] = value;
  }
  const context: RequestContext = {
    requestId,
    credentials,
    identity: () => (identity ??= access.authenticator.authenticate(source)),
    async authorize(operation) {
      const caller = await context.identity();
      access.authorizer.authorize(caller, operation);
      return caller;
    },
  };
  return context;
}
