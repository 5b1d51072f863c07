import { DomainError } from '../../kernel/errors.js';
import { codeEnvelope, errorPolicy } from '../http/envelopes.js';
import type { FacadeResponse } from '../route-table.js';

/**
 * `{code, message, details}` (DECISIONS section 5). The shared body reader calls malformed JSON
 * BAD_REQUEST; this service has one code for every unusable compute body, located like the others.
 */
function indicatorEnvelope(status: number, error: DomainError): FacadeResponse {
  if (error.code !== 'BAD_REQUEST') return codeEnvelope(status, error);
  return codeEnvelope(status, new DomainError('INVALID_REQUEST_BODY', 'the compute request body is invalid', { problems: [{ path: '$', message: error.message }] }));
}

/** Every code the indicator facade answers, and its status. */
export const indicatorErrors = errorPolicy(
  {
    BAD_REQUEST: 400,
    INVALID_REQUEST_BODY: 400,
    CORE_UNAUTHORIZED: 401,
    MODEL_VERSION_NOT_FOUND: 404,
    CALCULATION_ARTIFACT_NOT_FOUND: 404,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    VALIDATION_FAILED: 422,
    UNKNOWN_INDICATOR_SPECIFICATION: 422,
    INTERNAL_ERROR: 500,
    CORE_VALIDATION_ERROR: 502,
    CALCULATION_ARTIFACT_ERROR: 502,
    CALCULATION_ARTIFACT_VERSION_MISMATCH: 502,
  },
  indicatorEnvelope,
);
