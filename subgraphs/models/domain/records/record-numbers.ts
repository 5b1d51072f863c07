import { DomainError } from '../../../../kernel/errors.js';
import type { JsonValue } from '../../../../kernel/records/canonical-json.js';
import type { PathSegment } from '../../../../kernel/records/record-filter.js';

/**
 * The `record_numbers` index (docs/STORE.md): one row per number of a payload whose field a query
 * filter can name. Range conditions and sorts on a payload number read it rather than decoding every
 * payload. The migration that created the table backfills it with the same paths in SQL.
 */
export interface PayloadNumber {
  /** The field as a filter names it after `payload.`: `total_score`, `cells[2].mass`. */
  path: string;
  value: number;
}

/** Object keys a filter can name (record-filter.ts); numbers under any other key are never queried. */
const NAMEABLE_KEY = /^[A-Za-z0-9_-]+$/;

/** `a`, 2, `b` → `a[2].b`: the first segment of a filter path is always a key. */
export function numberPath(path: readonly PathSegment[]): string {
  return path
    .map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`))
    .join('')
    .slice(1);
}

/**
 * Every number of the payload with its path, from a key of the payload object down (a payload that
 * is not an object has no nameable field). Iterative: payloads from GraphQL have no depth limit.
 */
export function payloadNumbers(payload: JsonValue): PayloadNumber[] {
  if (!isObject(payload)) return [];
  const found: PayloadNumber[] = [];
  const pending: Array<[JsonValue, string]> = Object.entries(payload)
    .filter(([key]) => NAMEABLE_KEY.test(key))
    .map(([key, value]) => [value, key]);
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'number') found.push({ path, value });
    else if (Array.isArray(value)) value.forEach((element, index) => pending.push([element, `${path}[${index}]`]));
    else if (isObject(value)) {
      for (const [key, element] of Object.entries(value)) if (NAMEABLE_KEY.test(key)) pending.push([element, `${path}.${key}`]);
    }
  }
  return found;
}

/**
 * The longest path of an indexed payload number, in bytes of UTF-8. PostgreSQL refuses an index
 * entry over 2,704 bytes, and `record_numbers` indexes the path with the record's id and namespace
 * (256 bytes each at most, storable-json.ts): a longer path failed there and passed on SQLite.
 */
const MAX_NUMBER_PATH_BYTES = 1024;

/** BAD_REQUEST on both backends alike when a number's path is too long to be indexed. */
export function requireIndexable(numbers: readonly PayloadNumber[]): void {
  if (!numbers.some(({ path }) => Buffer.byteLength(path, 'utf8') > MAX_NUMBER_PATH_BYTES)) return;
  const reason = `the path of a number in the payload (its field names joined) may hold at most ${MAX_NUMBER_PATH_BYTES} bytes of UTF-8`;
  throw new DomainError('BAD_REQUEST', `payload cannot be stored: ${reason}`, { field: 'payload', reason });
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
