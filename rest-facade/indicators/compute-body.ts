import { isJsonObject } from '../../kernel/json.js';
import type { IndicatorComputeMutationVariables } from '../generated/operations.js';
import { unusableBody } from './errors.js';

/** Sent for a `model_version` that is not a string: the service refuses it with the problem it gives any unusable version. */
const UNUSABLE_VERSION = '';

/**
 * The `POST /compute` body as the mutation's variables. The payload goes on exactly as received:
 * the service validates it as sent and echoes its extra keys. The service reports every problem of
 * the body at once, located in it (`$.model_version`, `$.payload…`); where the graph's types cannot
 * carry a value, what is sent makes the service report it all the same: a payload that is not an
 * object is left out (`$.payload` is required), a version that is not a string is UNUSABLE_VERSION.
 * Only a body that is not an object is refused here.
 */
export function computeVariables(body: unknown): IndicatorComputeMutationVariables {
  if (!isJsonObject(body)) throw unusableBody('must be an object');
  const version = body.model_version ?? null;
  return {
    modelVersion: version === null || typeof version === 'string' ? version : UNUSABLE_VERSION,
    payload: isJsonObject(body.payload) ? body.payload : null,
  };
}
