/** A JSON object as parsed, its members not yet checked. */
export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `parent[key]` made writable: a frozen object or array (an answer shared by many requests,
 * gateway/executor/answer-cache.ts) is replaced in its writable parent by a copy of its first level,
 * which is returned; anything else stays as it is.
 */
export function thawed(parent: Record<string, unknown> | unknown[], key: string | number): unknown {
  const value = (parent as Record<string | number, unknown>)[key];
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return value;
  const copy = Array.isArray(value) ? [...value] : { ...value };
  (parent as Record<string | number, unknown>)[key] = copy;
  return copy;
}
