import { DomainError } from '../../../kernel/errors.js';

/**
 * A database failure as the contract's STORE_ERROR (502). The message is ours: SQL, driver text and
 * connection strings stay out of it; the original error is kept as a non-enumerable `cause` for
 * the operator's logs.
 */
export function storeFailure(message: string, cause: unknown): DomainError {
  if (cause instanceof DomainError) return cause;
  const error = new DomainError('STORE_ERROR', message);
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false });
  return error;
}
