import { type DocumentLruOptions, documentLru } from '../kernel/graphql/document-lru.js';

/** Apollo's `KeyValueCache`, as its document store, persisted queries and query plan store (which also clears it) call it. */
export interface ApolloKeyValueCache<V> {
  get(key: string): Promise<V | undefined>;
  set(key: string, value: V): Promise<void>;
  delete(key: string): Promise<boolean>;
  clear(): void;
}

/**
 * A per-document cache of Apollo Server or @apollo/gateway with this project's bound
 * (kernel/graphql/document-lru.ts). Their own default, an `InMemoryLRUCache` of 30 MiB as
 * `JSON.stringify` measures, holds some 75,000 small parsed documents or plans, several times that
 * in memory: under a flood of distinct documents the gateway grew by a gigabyte. A time to live is
 * ignored: none is configured (persisted queries would pass one only if `persistedQueries.ttl` were set).
 */
export function boundedApolloCache<V extends NonNullable<unknown>>(size: (value: V) => number, options?: DocumentLruOptions): ApolloKeyValueCache<V> {
  const entries = documentLru<V>(size, options);
  return {
    get: async (key) => entries.get(key),
    set: async (key, value) => void entries.set(key, value),
    delete: async (key) => entries.delete(key),
    clear: () => entries.clear(),
  };
}
