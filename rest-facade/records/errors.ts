import type { DomainError } from '../../kernel/errors.js';
import { codeEnvelope, errorPolicy } from '../http/envelopes.js';
import type { FacadeResponse } from '../route-table.js';

/** DECISIONS section 4: one lower-case code per status. */
const CODE_OF_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  500: 'internal_error',
  503: 'unavailable',
};

/** `{code, message, details}` like the core's, with the status's lower-case code. */
function recordsEnvelope(status: number, error: DomainError): FacadeResponse {
  const envelope = codeEnvelope(status, error);
  return { ...envelope, body: { ...(envelope.body as object), code: CODE_OF_STATUS[status] } };
}

/**
 * The records backend's table. Both 409s are `conflict` (the message says which); a store or key
 * set that does not answer is `unavailable` (503): the backend cannot serve now, retry later.
 */
export const recordsErrors = errorPolicy(
  {
    BAD_REQUEST: 400,
    MISSING_IDEMPOTENCY_KEY: 400,
    UNAUTHORIZED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    RECORD_NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    IDEMPOTENCY_CONFLICT: 409,
    RECORD_CONFLICT: 409,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    UNPROCESSABLE: 422,
    STORE_ERROR: 503,
    AUTH_UNAVAILABLE: 503,
    INTERNAL_ERROR: 500,
  },
  recordsEnvelope,
);
