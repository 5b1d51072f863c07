import { DomainError } from '../kernel/errors.js';

/**
 * Retry-After of a STORE_BUSY answer (the facades send `details.retry_after_seconds` as the header).
 * One second: the wait that failed was already bounded (DATABASE_ACQUIRE_TIMEOUT_MS), so a client
 * comes back soon, with backoff of its own.
 */
const RETRY_AFTER_SECONDS = 1;

/**
 * A database failure as the contract's STORE_ERROR (502), or STORE_BUSY (503 with Retry-After) when
 * the database did not take the work within a bound of ours (limits.ts) or turned it away for
 * load: a retry later may succeed. The message is ours: SQL, driver text and connection strings stay
 * out of it; the original error is kept as a non-enumerable `cause` for the operator's logs.
 */
export function storeFailure(message: string, cause: unknown): DomainError {
  if (cause instanceof DomainError) return cause;
  const error = isBusy(cause) ? new DomainError('STORE_BUSY', 'the records store is busy: retry later', { retry_after_seconds: RETRY_AFTER_SECONDS }) : new DomainError('STORE_ERROR', message);
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false });
  return error;
}

/**
 * What the drivers say when a bound ran out, by message (node-postgres and its pool have no codes for
 * them) or by code: a PostgreSQL SQLSTATE, Prisma's own code, a driver adapter's kind of error.
 */
const BUSY_MESSAGES = new Set([
  'timeout exceeded when trying to connect', // pg-pool: no connection free within acquireTimeoutMs
  'Connection terminated due to connection timeout', // pg-pool: a new connection not open within it
  'timeout expired', // node-postgres: the same, seen by the connection
  'Query read timeout', // node-postgres: no answer within the statement timeout and its grace
]);
const BUSY_CODES = new Set([
  '57014', // query_canceled: the statement timeout
  '25P03', // idle_in_transaction_session_timeout: a transaction left waiting past the statement timeout
  '55P03', // lock_not_available: a lock not granted within its timeout
  '53300', // too_many_connections: the server's max_connections reached
  'P2028', // Prisma: no transaction started within maxWait, or one ran past its timeout
  'SocketTimeout', // adapters: SQLite busy past its timeout (another process writes), a socket timeout
]);

/** Whether the failure, or one it was caused by, is a bound that ran out. */
function isBusy(failure: unknown): boolean {
  for (let error = failure; typeof error === 'object' && error !== null; error = (error as { cause?: unknown }).cause) {
    if (BUSY_MESSAGES.has((error as Error).message) || codesOf(error).some((code) => BUSY_CODES.has(code as string))) return true;
  }
  return false;
}

/** A driver error's code; Prisma's, with the driver adapter's code and kind beneath it. */
function codesOf(error: object): unknown[] {
  const { code, meta } = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; kind?: unknown } } } };
  const adapter = meta?.driverAdapterError?.cause;
  return [code, adapter?.originalCode, adapter?.kind];
}
