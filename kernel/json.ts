import { RawJson } from './raw-json.js';

/** A JSON object as parsed, its members not yet checked. */
export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `parent[key]` made writable: a frozen object or array (an answer shared by many requests,
 * gateway/executor/answer-cache.ts) is replaced in its writable parent by a copy of its first level,
 * which is returned; a subtree kept as text (kernel/raw-json.ts) by its parsed value; anything else
 * stays as it is.
 */
export function thawed(parent: Record<string, unknown> | unknown[], key: string | number): unknown {
  const value = (parent as Record<string | number, unknown>)[key];
  if (value instanceof RawJson) return ((parent as Record<string | number, unknown>)[key] = value.parsed());
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return value;
  const copy = Array.isArray(value) ? [...value] : { ...value };
  (parent as Record<string | number, unknown>)[key] = copy;
  return copy;
}

/**
 * What `JSON.parse(JSON.stringify(value))` gives, made without the text: new objects and arrays,
 * the same strings (V8's strings cannot change, so sharing them is safe, and a payload's long
 * strings are not copied). Members JSON would leave out (undefined, functions) are left out,
 * array elements it would write as null are null, `toJSON` is honoured (a GraphQLError, a Date).
 * A subtree kept as text (kernel/raw-json.ts) is taken as it is: frozen, it never changes.
 */
export function jsonCopy(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null; // -0 is written 0
  if (typeof value !== 'object' || value === null || value instanceof RawJson) return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return jsonCopy((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return value.map((element) => (omittedByJson(element) ? null : jsonCopy(element)));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (!omittedByJson(member)) copy[key] = jsonCopy(member);
  }
  return copy;
}

/**
 * `value` made unchangeable through and through: an answer handed to many requests at once
 * (gateway/executor/answer-cache.ts, inflight-sharing.ts). What writes into fetched data copies a
 * frozen object first (`thawed`), and a write that missed it throws rather than change another
 * request's answer.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

function omittedByJson(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
