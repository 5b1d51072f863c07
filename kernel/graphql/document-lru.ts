import { LRUCache } from 'lru-cache';

/**
 * The bound of every cache that keeps something per distinct document in the request path (parsed
 * documents, verdicts, query plans): the least recently used go past 1,000 entries or past 1 MiB of
 * what `size` measures (the document's text, in characters, or a plan's JSON). The project's own
 * documents (REST routes, frontend kit, trusted documents) are a few dozen and under 20 KB of text,
 * so they stay; a flood of distinct documents only turns the oldest over. What is derived from a
 * parsed document and kept in a WeakMap keyed by it (plans compiled by the planned executor, usage
 * coordinates, operation measures) goes with the document.
 */
export const DOCUMENTS_KEPT = 1000;
export const DOCUMENT_TEXT_KEPT = 1024 * 1024;

/** Keys whose first sighting is remembered (Sightings): eight times the entries kept. */
const SIGHTING_SLOTS = 8 * 1024;

export interface DocumentLruOptions {
  /**
   * Keep an entry the first time it is set. By default an entry is kept only when its key is set a
   * second time while its first sighting is remembered: a document sent once (a flood of distinct
   * documents, a one-off query) is never kept, so it never pushes out the documents clients send
   * again and again, and what was derived from it is not held for the next thousand requests
   * (docs/DECISIONS.md, "A document is cached on its second sighting"). Automatic persisted queries
   * keep theirs at once: a client registers a text once and then sends its hash alone.
   */
  admitFirstSighting?: boolean;
}

/** get / set / delete / clear: what the caches in the request path ask of theirs. */
export interface DocumentLru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): boolean;
  clear(): void;
}

export function documentLru<V extends NonNullable<unknown>>(size: (value: V, key: string) => number, options: DocumentLruOptions = {}): DocumentLru<V> {
  const entries = new LRUCache<string, V>({ max: DOCUMENTS_KEPT, maxSize: DOCUMENT_TEXT_KEPT, sizeCalculation: (value, key) => Math.max(1, size(value, key)) });
  if (options.admitFirstSighting) return entries;
  const sightings = new Sightings();
  return {
    get: (key) => entries.get(key),
    set: (key, value) => {
      if (sightings.repeated(key)) entries.set(key, value);
    },
    delete: (key) => entries.delete(key),
    clear: () => entries.clear(),
  };
}

/**
 * The keys set lately, as 32-bit hashes in a table of slots (a doorkeeper, as in TinyLFU): no
 * allocation per key, so remembering a flood costs nothing. A key is "repeated" when its slot still
 * holds its hash; another key landing in the slot only makes it wait for one more sighting.
 */
class Sightings {
  private readonly slots = new Int32Array(SIGHTING_SLOTS);

  /** Whether `key` was seen since its slot last changed; it is remembered either way. */
  repeated(key: string): boolean {
    const hash = fnv1a(key);
    const slot = (hash >>> 0) % SIGHTING_SLOTS;
    const mark = hash | 1; // never 0, an empty slot
    if (this.slots[slot] === mark) return true;
    this.slots[slot] = mark;
    return false;
  }
}

/** FNV-1a over the key's UTF-16 code units. */
function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash;
}
