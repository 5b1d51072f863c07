import { codeEnvelope, errorPolicy } from '../http/envelopes.js';

/** Doc 01 and DECISIONS section 3: every code the core facade answers, and its status. */
export const coreErrors = errorPolicy(
  {
    BAD_REQUEST: 400,
    MISSING_IDEMPOTENCY_KEY: 400,
    UNAUTHORIZED: 401,
    FORBIDDEN: 403,
    MODEL_NOT_FOUND: 404,
    ARTIFACT_NOT_FOUND: 404,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    IDEMPOTENCY_CONFLICT: 409,
    RECORD_CONFLICT: 409,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    VALIDATION_FAILED: 422,
    STORE_ERROR: 502,
    REGISTRY_ERROR: 502,
    VALIDATOR_ERROR: 500,
    AUTH_UNAVAILABLE: 503,
    INTERNAL_ERROR: 500,
  },
  codeEnvelope,
);
