import type { Logger } from 'pino';
import { DomainError, ERROR_STATUSES, isErrorCode } from '../../kernel/errors.js';
import { maskCredentials } from '../../kernel/logger.js';
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
          operation: exchange.operationName,
          status: exchange.status,
          codes: exchange.codes,
          causes: exchange.failures.map(causeOf),
        },
        'server error',
      );
    },
  };
}

/** The underlying error: a DomainError's `cause` (a store failure keeps the driver's), else the error itself. */
function causeOf(failure: unknown): { class: string; message: string } {
  const cause = failure instanceof DomainError && failure.cause !== undefined ? failure.cause : failure;
  const error = cause instanceof Error ? cause : new Error(String(cause));
  return { class: error.constructor?.name ?? error.name, message: maskCredentials(error.message).slice(0, MAX_MESSAGE) };
}
