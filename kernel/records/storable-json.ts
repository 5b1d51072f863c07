import { DomainError } from '../errors.js';

/** U+0000, or a UTF-16 surrogate without its partner (not a Unicode scalar value). */
// eslint-disable-next-line no-control-regex -- U+0000 is what this looks for: PostgreSQL's jsonb cannot store it
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Unstorable {
  /** A JSONPath into the value: `$`, `$.a[0]`, `$["a b"]`. */
  at: string;
  reason: string;
}

/**
 * Why a JSON value cannot be stored exactly, or null when it can. Both backends refuse the same
 * values, so they behave the same: PostgreSQL's text and jsonb cannot hold U+0000 or unpaired
 * surrogates, and Prisma drops object keys named `__proto__` (it copies JSON objects by assignment,
 * which sets a prototype instead of adding the key). Refused, never silently altered. Iterative:
 * GraphQL variables reach the store without the REST facades' depth limit.
 */
export function unstorable(value: unknown): Unstorable | null {
  const pending: Array<[unknown, string]> = [[value, '$']];
  while (pending.length > 0) {
    const [item, at] = pending.pop()!;
    if (typeof item === 'string') {
      if (UNSTORABLE_TEXT.test(item)) return { at, reason: 'strings may not hold U+0000 or unpaired surrogates' };
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => pending.push([element, `${at}[${index}]`]));
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        const keyAt = PLAIN_KEY.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
        if (key === '__proto__') return { at: keyAt, reason: 'an object key may not be "__proto__"' };
        if (UNSTORABLE_TEXT.test(key)) return { at: keyAt, reason: 'object keys may not hold U+0000 or unpaired surrogates' };
        pending.push([element, keyAt]);
      }
    }
  }
  return null;
}

/** BAD_REQUEST naming `what` (payload, id, …) and where, when the value cannot be stored. */
export function requireStorable(what: string, value: unknown): void {
  const problem = unstorable(value);
  if (problem) throw new DomainError('BAD_REQUEST', `${what} cannot be stored: ${problem.reason}`, { field: what, ...problem });
}

/**
 * The longest name a record is stored and indexed under, in bytes of UTF-8 as stored (256 ASCII
 * characters; fewer beyond ASCII): its id, model and version, its idempotency key, a grantee, and
 * its owner's subject and tenant. PostgreSQL refuses an index entry over 2,704 bytes and its widest
 * holds three names (model, version and id; a grant's record id, namespace and grantee): an
 * 8,000-character key or id failed there (503) and passed on SQLite. Both refuse alike, before any
 * other work.
 */
const MAX_NAME_BYTES = 256;

/** BAD_REQUEST naming the first of `names` (field → value) that is longer than MAX_NAME_BYTES. */
export function requireFittingNames(names: Record<string, string>): void {
  for (const [field, value] of Object.entries(names)) {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > MAX_NAME_BYTES) {
      const reason = `may hold at most ${MAX_NAME_BYTES} bytes of UTF-8 (${MAX_NAME_BYTES} ASCII characters); it holds ${bytes}`;
      throw new DomainError('BAD_REQUEST', `${field} is too long: it ${reason}`, { field, reason, max_bytes: MAX_NAME_BYTES });
    }
  }
}

/** 2^63: a whole number from -2^63 up to here fits SQLite's 64-bit integers. */
const INT64_END = 2 ** 63;

/**
 * A whole payload: `requireStorable`, and not a bare whole number beyond ±(2^53 − 1) that fits 64
 * bits: the JSON column's numeric affinity makes SQLite keep it as an integer, which its driver
 * refuses to read back (and which JavaScript could not hold exactly anyway). Refused on both backends.
 */
export function requireStorablePayload(payload: unknown): void {
  if (typeof payload === 'number' && Number.isInteger(payload) && !Number.isSafeInteger(payload) && payload >= -INT64_END && payload < INT64_END) {
    const reason = 'a payload that is a bare whole number may not lie between 2^53 and 2^63 in magnitude';
    throw new DomainError('BAD_REQUEST', `payload cannot be stored: ${reason}`, { field: 'payload', at: '$', reason });
  }
  requireStorable('payload', payload);
}
