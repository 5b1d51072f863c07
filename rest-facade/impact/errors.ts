import type { DomainError } from '../../kernel/errors.js';
import { errorPolicy } from '../http/envelopes.js';
import type { FacadeResponse } from '../route-table.js';

/**
 * The impact service's envelopes (doc 03 part II, DECISIONS section 6): `{detail: {code, message}}`,
 * except FastAPI's own shapes for a body it cannot use: 422 `{detail: [issues]}` and 400 for bytes
 * it cannot decode.
 */
function impactEnvelope(status: number, error: DomainError): FacadeResponse {
  if (error.code === 'UNPROCESSABLE') return { status, body: { detail: error.details } };
  if (error.code === 'BAD_REQUEST') return { status, body: { detail: error.message } };
  return { status, body: { detail: { code: error.code, message: error.message } } };
}

/** Every code answers its own status (kernel/errors.ts), in this service's envelopes. */
export const impactErrors = errorPolicy({}, impactEnvelope);
