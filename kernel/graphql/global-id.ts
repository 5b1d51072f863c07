import { createHash } from 'node:crypto';

/**
 * The graph's global object ids (Relay's Global Object Identification): the `id` of a `Node` names one
 * object across the whole graph, so a client cache that keys objects by `__typename` and `id` (Apollo
 * Client, urql's graphcache, Relay) never mixes two up, and `node(id:)` takes it back. An id is opaque
 * to clients: the base64url (unpadded) of `<type>:<key>`, the GraphQL type that owns the object and
 * that type's own key. A record keeps the id its REST paths use and never goes through here.
 */
export function globalId(type: string, key: string): string {
  return Buffer.from(`${type}:${key}`, 'utf8').toString('base64url');
}

/** Longer than any id the graph hands out (a model version's is about 80 characters): not one of ours. */
const MAX_ID_LENGTH = 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const TYPE_NAME = /^[A-Z][A-Za-z]*$/;

/**
 * The type and key of one of the graph's own ids, or null for anything else (a record's id, a
 * mistyped or forged one). An id has one spelling: text that does not encode back to exactly the id
 * given (invalid UTF-8, stray bits in the last character) is not one.
 */
export function parseGlobalId(id: string): { type: string; key: string } | null {
  if (id.length > MAX_ID_LENGTH || !BASE64URL.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  const type = text.slice(0, colon);
  if (colon < 0 || !TYPE_NAME.test(type) || globalId(type, text.slice(colon + 1)) !== id) return null;
  return { type, key: text.slice(colon + 1) };
}

/** The types of a model version's questionnaire (the indicators subgraph's); `node(id:)` is answered by the models subgraph. */
export const QUESTIONNAIRE_TYPES = ['Indicator', 'IndicatorParameter', 'IndicatorQuestion', 'IndicatorAnswer'] as const;
export type QuestionnaireType = (typeof QUESTIONNAIRE_TYPES)[number];

/**
 * 72 bits of a SHA-256: two items of one questionnaire (the published one has 2,266) share a digest with a
 * chance of about 10^-16, and the questionnaire refuses to index such a pair rather than serve it.
 */
const DIGEST_LENGTH = 12;

/**
 * The key of an item of a version's questionnaire: a digest of its path of local keys (indicator,
 * parameter, question, answer), then the version. Local keys repeat across indicators and versions
 * (`P3_depollution` is two different parameters of the published 0.0.4); the path and the version do
 * not. A digest keeps the 2,266 ids of the published questionnaire short (36 to 48 characters) however long the keys.
 */
export function questionnaireItemKey(version: string, path: ReadonlyArray<string | number>): string {
  return createHash('sha256').update(JSON.stringify(path)).digest('base64url').slice(0, DIGEST_LENGTH) + version;
}

/** The version a questionnaire item's key names, or null for a key that is not one. */
export function versionOfQuestionnaireItem(key: string): string | null {
  return key.length > DIGEST_LENGTH ? key.slice(DIGEST_LENGTH) : null;
}

export function isQuestionnaireType(type: string): type is QuestionnaireType {
  return (QUESTIONNAIRE_TYPES as readonly string[]).includes(type);
}
