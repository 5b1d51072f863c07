import type { Authenticator, CredentialSource, Identity } from '../identity/identity.js';
import type { Authorizer, Operation } from '../identity/authorization.js';
import type { RequestBudget } from '../request-budget.js';

/** Who may do what: the process's authenticator (the mode) and authorizer (scopes, roles, policy). */
export interface AccessControl {
  authenticator: Authenticator;
  authorizer: Authorizer;
}

/** What the door that received a request keeps of it for its log line (pipeline/). */
export interface RequestTrace {
  requestId: string;
  /** Errors of this request that are the server's fault (a 5xx code), as thrown, causes and all. */
  failures: unknown[];
  /** What the request may still use while it runs (pipeline/request-budget.ts). */
  budget: RequestBudget;
}

/**
 * A failure that is the server's fault, recorded on the request's trace as thrown (causes and all)
 * where it happened, for the one log line the request's door writes (pipeline/server-error-log.ts).
 * Every failure is recorded through here or `recordFirstFailure`.
 */
export function recordFailure(trace: RequestTrace | undefined, failure: unknown): void {
  trace?.failures.push(failure);
}

/** A failure seen again further out (relayed, refused), recorded only when nothing recorded its cause on the way. */
export function recordFirstFailure(trace: RequestTrace, failure: unknown): void {
  if (trace.failures.length === 0) trace.failures.push(failure);
}

/**
 * What every resolver receives. The identity is resolved lazily and once: public fields (the
 * liveness probe) never authenticate, every other root field does (see `authChecker`).
 */
export interface RequestContext {
  requestId: string;
  /** The door's record of the request, the same object however the context is copied. */
  trace: RequestTrace;
  /** The request's runtime budget (its trace's), charged by the store and measured by the doors. */
  budget: RequestBudget;
  identity(): Promise<Identity>;
  /** Authenticates, then checks the operation's requirements (FORBIDDEN when they are not met). */
  authorize(operation: Operation): Promise<Identity>;
  /** The caller's credential headers (and `authorization`), as sent. */
  credentials: Record<string, string>;
  /**
   * What may be passed on to a service that verifies the caller itself (a remote subgraph, the
   * core's `:validate`): a bearer token whenever the caller sent one (the receiver verifies it), and
   * the mode's other credential headers (forward_auth's identity headers) only when they
   * authenticated the caller here, i.e. came from a trusted proxy: the receiver trusts this process
   * as a proxy, which must never pass on identity headers anyone could have sent.
   */
  forwardedCredentials(): Promise<Record<string, string>>;
}

/**
 * The caller's bearer token reaches the resolvers whatever this process's own auth mode: the
 * indicator service forwards it to the core (doc 02), which may verify callers when we do not.
 */
const ALWAYS_FORWARDED = ['authorization'];

/** A header sent more than once is not forwarded: authenticating the caller refuses it (UNAUTHORIZED). */
function forwardable(source: CredentialSource, name: string): string | undefined {
  try {
    return source.header(name);
  } catch {
    return undefined;
  }
}

export function requestContext(access: AccessControl, source: CredentialSource, trace: RequestTrace): RequestContext {
  let identity: Promise<Identity> | undefined;
  const credentials: Record<string, string> = {};
  for (const name of new Set([...ALWAYS_FORWARDED, ...access.authenticator.credentialHeaders])) {
    const value = forwardable(source, name);
    if (value !== undefined) credentials[name] = value;
  }
  const context: RequestContext = {
    requestId: trace.requestId,
    trace,
    budget: trace.budget,
    credentials,
    identity: () => (identity ??= access.authenticator.authenticate(source)),
    async authorize(operation) {
      const caller = await context.identity();
      access.authorizer.authorize(caller, operation);
      return caller;
    },
    async forwardedCredentials() {
      const { authorization, ...others } = credentials;
      const forwarded: Record<string, string> = /^Bearer +\S+ *$/i.test(authorization ?? '') ? { authorization: authorization! } : {};
      const authenticated =
        Object.keys(others).length > 0 &&
        (await context.identity().then(
          () => true,
          () => false,
        ));
      return authenticated ? { ...forwarded, ...others } : forwarded;
    },
  };
  return context;
}

/** A GatewayInterface executor receives a request's context as a plain record: ours when a door of this process made it. */
export function isRequestContext(context: object): context is RequestContext {
  return 'trace' in context && 'budget' in context;
}
