import type { DomainError } from '../../kernel/errors.js';
import { codeEnvelope, errorPolicy } from '../http/envelopes.js';
import type { FacadeResponse } from '../route-table.js';

/** DECISIONS section 4: one lower-case code per status. */
const CODE_OF_STATUS: Readonly<Record<number, string>> = {
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

/** The codes of this facade's envelope (its OpenAPI document lists them). */
export const RECORDS_CODES = Object.values(CODE_OF_STATUS);

/**
 * `{code, message, details}` like the core's, with the status's lower-case code. A client error the
 * contract names no code for (408, 431: the HTTP server's own limits) keeps its status with the code
 * `bad_request`.
 */
function recordsEnvelope(status: number, error: DomainError): FacadeResponse {
  const envelope = codeEnvelope(status, error);
  return { ...envelope, body: { ...(envelope.body as object), code: CODE_OF_STATUS[status] ?? 'bad_request' } };
}

/**
 * The records backend's statuses where they differ from the codes' own. A store or key set that does
 * not answer, and any upstream failure, is `unavailable` (503): the backend cannot serve now, retry
 * later. Both 409s are `conflict` (the message says which).
 */
export const recordsErrors = errorPolicy(
  {
    STORE_ERROR: 503,
    REGISTRY_ERROR: 503,
    CORE_VALIDATION_ERROR: 503,
    CALCULATION_ARTIFACT_ERROR: 503,
    CALCULATION_ARTIFACT_VERSION_MISMATCH: 503,
    SUBGRAPH_TIMEOUT: 503,
    SUBGRAPH_UNAVAILABLE: 503,
    SUBGRAPH_ERROR: 503,
    DEADLINE_EXCEEDED: 503,
    CALCULATION_NOT_IMPLEMENTED: 500,
  },
  recordsEnvelope,
);
