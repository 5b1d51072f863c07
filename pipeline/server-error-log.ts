import type { Logger } from 'pino';
import { DomainError, ERROR_STATUSES, isErrorCode } from '../kernel/errors.js';
import { maskCredentials } from '../kernel/logger.js';
import type { RequestPlugin } from './pipeline.js';

/** A cause's message is cut here: enough to recognise it, never a whole upstream answer. */
const MAX_MESSAGE = 300;

/**
 * Every answer that is the server's fault (a 5xx, or a GraphQL answer carrying an error whose code
 * is one) leaves exactly one log line: the request id, the door, the route or operation, the status,
 * the codes and, for each failure recorded on the way, its cause's class and message with
 * credentials masked. Never the token, the payload or the variables.
 */
export function serverErrorLog(logger: Pick<Logger, 'error'>): RequestPlugin {
  return {
    onResponse(exchange) {
      if (exchange.status < 500 && !exchange.codes.some((code) => isErrorCode(code) && ERROR_STATUSES[code] >= 500)) return;
      logger.error(
        {
          requestId: exchange.requestId,
          door: exchange.door,
          route: exchange.route,
          operation: exchange.operationName ?? exchange.anonymousOperation ?? null,
          status: exchange.status,
          codes: exchange.codes,
          causes: exchange.failures.map(causeOf),
        },
        'server error',
      );
    },
  };
}

/** What the log line tells of one failure: its class, message and, when it has one, its code. */
interface Cause {
  class: string;
  message: string;
  code?: string;
}

/**
 * The underlying error: a DomainError's `cause` (a store failure keeps the driver's), else the error
 * itself. A subgraph's error relayed by the gateway is the plain object the subgraph answered
 * (`{message, extensions: {code}}`): its own message and code, not `[object Object]` (issue 23).
 */
function causeOf(failure: unknown): Cause {
  const cause = failure instanceof DomainError && failure.cause !== undefined ? failure.cause : failure;
  const described = describe(cause);
  const code = codeOf(cause) ?? (cause === failure ? undefined : codeOf(failure));
  return { class: described.class, message: maskCredentials(described.message).slice(0, MAX_MESSAGE), ...(code === undefined ? {} : { code }) };
}

function describe(cause: unknown): { class: string; message: string } {
  if (cause instanceof Error) return { class: cause.constructor?.name ?? cause.name, message: cause.message };
  const message = (cause as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return { class: 'GraphQLFormattedError', message };
  return { class: typeof cause, message: String(cause) };
}

/** A DomainError's, a GraphQL error's (`extensions.code`) or a system error's (`ECONNREFUSED`) code. */
function codeOf(cause: unknown): string | undefined {
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { code, extensions } = cause as { code?: unknown; extensions?: { code?: unknown } };
  const found = extensions?.code ?? code;
  return typeof found === 'string' ? found : undefined;
}
