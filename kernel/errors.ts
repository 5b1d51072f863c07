/**
 * Domain errors carry the contract's error code. Every layer (domain, resolvers, gateway, facades)
 * keeps the code; only the facades turn it into an HTTP status and envelope, each with its own table.
 */
/**
 * Every code with the HTTP status it stands for (DECISIONS section 3's table, the indicator and
 * impact codes of sections 5 and 6, and the project's own). A facade answers this status unless
 * its own table says otherwise (rest-facade/http/envelopes.ts), so no code can reach a facade
 * without one.
 */
export const ERROR_STATUSES = {
  BAD_REQUEST: 400,
  MISSING_IDEMPOTENCY_KEY: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  MODEL_NOT_FOUND: 404,
  ARTIFACT_NOT_FOUND: 404,
  RECORD_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  IDEMPOTENCY_CONFLICT: 409,
  RECORD_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  VALIDATION_FAILED: 422,
  HEADERS_TOO_LARGE: 431,
  STORE_ERROR: 502,
  // the records store is saturated: retry later (answered with Retry-After)
  STORE_BUSY: 503,
  REGISTRY_ERROR: 502,
  VALIDATOR_ERROR: 500,
  AUTH_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  // indicator service (doc 02, DECISIONS section 5)
  INVALID_REQUEST_BODY: 400,
  CORE_UNAUTHORIZED: 401,
  MODEL_VERSION_NOT_FOUND: 404,
  CALCULATION_ARTIFACT_NOT_FOUND: 404,
  UNKNOWN_INDICATOR_SPECIFICATION: 422,
  CORE_VALIDATION_ERROR: 502,
  CALCULATION_ARTIFACT_ERROR: 502,
  CALCULATION_ARTIFACT_VERSION_MISMATCH: 502,
  // impact service (doc 03 part II, DECISIONS section 6)
  BACKGROUND_PROJECT_UNAVAILABLE: 503,
  CALCULATION_NOT_IMPLEMENTED: 501,
  // GraphQL gateway limits
  QUERY_TOO_LARGE: 400,
  QUERY_TOO_DEEP: 400,
  TOO_MANY_ALIASES: 400,
  QUERY_TOO_COMPLEX: 400,
  TOO_MANY_SELECTIONS: 400,
  LITERAL_TOO_DEEP: 400,
  LITERAL_TOO_LARGE: 400,
  // distributed mode: a remote subgraph that does not answer within SUBGRAPH_TIMEOUT_MS
  SUBGRAPH_TIMEOUT: 504,
  // distributed mode: a remote subgraph that cannot be reached (down, refusing, the connection cut)
  SUBGRAPH_UNAVAILABLE: 503,
  // distributed mode: a remote subgraph (or what stands in front of it) answered something that is not a GraphQL response
  SUBGRAPH_ERROR: 502,
  // the request's runtime budget (kernel/request-budget.ts): the request is understood but asks for
  // more than one answer may hold or read (ask for less), or did not finish in time
  RESPONSE_TOO_LARGE: 422,
  TOO_MANY_RECORDS_READ: 422,
  DEADLINE_EXCEEDED: 504,
  // the process is building and writing as many answers as PROCESS_MAX_ANSWER_MB allows
  // (kernel/answer-memory.ts): retry later (answered with Retry-After)
  SERVER_BUSY: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUSES;

export const ErrorCodes = Object.keys(ERROR_STATUSES) as ErrorCode[];

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
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUSES, value);
}

/** When an error says to come back (`details.retry_after_seconds`: STORE_BUSY, SERVER_BUSY), its `Retry-After` header. */
export function retryAfterHeader(error: DomainError): Record<string, string> {
  const seconds = (error.details as { retry_after_seconds?: unknown } | null)?.retry_after_seconds;
  return typeof seconds === 'number' ? { 'retry-after': String(seconds) } : {};
}

/** Any thrown value as a DomainError; unknown failures become INTERNAL_ERROR without their text. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  return new DomainError('INTERNAL_ERROR', 'internal error');
}
