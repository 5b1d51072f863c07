/**
 * The services' names and versions as their documents report them. The core's `service` is what its
 * `GET /admin/version` reports and what the indicator service reports as `validation.source` by
 * default; the impact service's identity is its `/health`'s and its OpenAPI document's.
 */
export const CORE_SERVICE_NAME = 'hex-core-service';
export const IMPACT_SERVICE_NAME = 'impact-calculation-service';
/** Moves with the impact service's API contract. */
export const IMPACT_SERVICE_VERSION = '0.1.0';
