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

export function documentLru<V extends NonNullable<unknown>>(size: (value: V, key: string) => number): LRUCache<string, V> {
  return new LRUCache<string, V>({ max: DOCUMENTS_KEPT, maxSize: DOCUMENT_TEXT_KEPT, sizeCalculation: (value, key) => Math.max(1, size(value, key)) });
}
