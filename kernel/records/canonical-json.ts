/**
 * Canonical JSON: object keys sorted, no whitespace. Idempotency fingerprints are taken over it (key
 * order ignored), and SQLite stores payloads in it so that a payload field holding an object or an
 * array equals a filter value exactly when their canonical texts are equal (PostgreSQL's jsonb
 * compares structurally by itself).
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A copy of `value` whose objects have their keys in sorted order. */
export function canonicalize(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(canonicalize);
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines own properties, so a `__proto__` key stays data, never a prototype.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonicalize(value[key] as JsonValue)]),
  );
}

export function canonicalJson(value: JsonValue): string {
  return JSON.stringify(canonicalize(value));
}
