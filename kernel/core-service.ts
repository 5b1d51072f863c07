/**
 * The core service's `service` name, as its `GET /admin/version` reports it. The indicator service
 * reports the same name as `validation.source` by default, so both read it from here.
 */
export const CORE_SERVICE_NAME = 'hex-core-service';
