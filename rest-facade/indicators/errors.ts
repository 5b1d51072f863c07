import { DomainError } from '../../kernel/errors.js';
import { codeEnvelope, errorPolicy } from '../http/envelopes.js';
import type { FacadeResponse } from '../route-table.js';

/** A compute body this service cannot use at all, located at its root as the service locates every problem. */
export function unusableBody(problem: string): DomainError {
  return new DomainError('INVALID_REQUEST_BODY', 'the compute request body is invalid', { problems: [{ path: '$', message: problem }] });
}

/**
 * `{code, message, details}` (DECISIONS section 5). The shared body reader calls malformed JSON
 * BAD_REQUEST; this service has one code for every unusable compute body, located like the others.
 */
function indicatorEnvelope(status: number, error: DomainError): FacadeResponse {
  return codeEnvelope(status, error.code === 'BAD_REQUEST' ? unusableBody(error.message) : error);
}

/** Every code answers its own status (kernel/errors.ts), in this service's envelope. */
export const indicatorErrors = errorPolicy({}, indicatorEnvelope);
