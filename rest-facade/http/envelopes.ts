import { DomainError, ERROR_STATUSES, type ErrorCode, retryAfterHeader } from '../../kernel/errors.js';
import type { ErrorPolicy, FacadeResponse } from '../route-table.js';
import { isJsonObject } from '../../kernel/json.js';

/** Renders an error whose status is known into one facade's envelope. */
export type Envelope = (status: number, error: DomainError) => FacadeResponse;

/**
 * `{code, message, details}` with `details` always present (null when empty). A 401 challenges for
 * a bearer token; an error that says when to come back (`details.retry_after_seconds`) says it in
 * `Retry-After` too.
 */
export const codeEnvelope: Envelope = (status, error) => ({
  status,
  headers: { ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}), ...retryAfterHeader(error) },
  body: { code: error.code, message: error.message, details: error.details ?? null },
});

/**
 * An error policy: every code answers its own status (ERROR_STATUSES) unless the facade's contract
 * gives it another one (`overrides`), in the facade's envelope.
 */
export function errorPolicy(overrides: Partial<Record<ErrorCode, number>>, envelope: Envelope): ErrorPolicy {
  return (error) => envelope(overrides[error.code] ?? ERROR_STATUSES[error.code], error);
}

/** The body of a JSON request as an object, or 400. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (!isJsonObject(body)) throw new DomainError('BAD_REQUEST', 'request body must be a JSON object');
  return body;
}

/** A member of the body that must be a JSON object (`payload`, `filter`), or 400 naming it. */
export function objectMember(body: Record<string, unknown>, name: string, required: boolean): Record<string, unknown> | undefined {
  const value = body[name];
  if (value === undefined && !required) return undefined;
  if (!isJsonObject(value)) throw new DomainError('BAD_REQUEST', `"${name}" must be a JSON object`, { field: name });
  return value;
}

/** DECISIONS section 3 "create": a replay answers the original record with this header. */
export function replayHeaders(replayed: boolean): Record<string, string> {
  return replayed ? { 'idempotent-replayed': 'true' } : {};
}
