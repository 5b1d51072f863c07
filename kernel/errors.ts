/**
 * Domain errors carry the contract's error code. Every layer (domain, resolvers, gateway, facades)
 * keeps the code; only the facades turn it into an HTTP status and envelope, each with its own table.
 */
export const ErrorCodes = [
  'BAD_REQUEST',
  'MISSING_IDEMPOTENCY_KEY',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'MODEL_NOT_FOUND',
  'ARTIFACT_NOT_FOUND',
  'RECORD_NOT_FOUND',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'IDEMPOTENCY_CONFLICT',
  'RECORD_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNPROCESSABLE',
  'VALIDATION_FAILED',
  'STORE_ERROR',
  'REGISTRY_ERROR',
  'VALIDATOR_ERROR',
  'AUTH_UNAVAILABLE',
  'INTERNAL_ERROR',
  // indicator service (doc 02, DECISIONS section 5)
  'INVALID_REQUEST_BODY',
  'CORE_UNAUTHORIZED',
  'MODEL_VERSION_NOT_FOUND',
  'CALCULATION_ARTIFACT_NOT_FOUND',
  'UNKNOWN_INDICATOR_SPECIFICATION',
  'CORE_VALIDATION_ERROR',
  'CALCULATION_ARTIFACT_ERROR',
  'CALCULATION_ARTIFACT_VERSION_MISMATCH',
  // impact service (doc 03 part II, DECISIONS section 6)
  'BACKGROUND_PROJECT_UNAVAILABLE',
  'CALCULATION_NOT_IMPLEMENTED',
  // GraphQL gateway limits
  'QUERY_TOO_DEEP',
  'TOO_MANY_ALIASES',
  'QUERY_TOO_COMPLEX',
] as const;

export type ErrorCode = (typeof ErrorCodes)[number];

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ErrorCodes as readonly string[]).includes(value);
}

/** Any thrown value as a DomainError; unknown failures become INTERNAL_ERROR without their text. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  return new DomainError('INTERNAL_ERROR', 'internal error');
}
