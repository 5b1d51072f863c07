/** Removals between two renewals at least; past that, one per removal of each entry the Map holds. */
const RENEW_AFTER = 64;

/**
 * A Map for entries that come and go with requests, held by an object that lives as long as the
 * process (the fetches in flight, the answer cache's recency order). V8 gives a Map's table a new
 * one each time it grows, shrinks or is compacted after removals, and allocates that one in the old
 * generation when the table it replaces is there already (`OrderedHashTable::Rehash`): a long-lived
 * Map that takes an entry and lets it go for every request puts its tables, and through the
 * discarded ones the entries they still point at, in the old generation until the next full
 * collection. For the fetches in flight that was ~0.5 KB a request, half of what a worker's old
 * generation grew by (bench/PROFILE.md, "Thirteenth steps").
 *
 * Every so many removals the entries move to a new Map, whose table is young and dies young when
 * it is replaced again; the copy keeps the insertion order, and costs one step per entry for as many
 * removals, so a removal stays O(1) amortised.
 */
export class RenewedMap<K, V> {
  private map = new Map<K, V>();
  private removals = 0;

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): this {
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    if (!this.map.delete(key)) return false;
    if (++this.removals >= Math.max(RENEW_AFTER, this.map.size)) {
      this.map = new Map(this.map);
      this.removals = 0;
    }
    return true;
  }

  /** The entry set first of those left (a Map's insertion order), if any. */
  oldest(): [K, V] | undefined {
    for (const entry of this.map) return entry;
    return undefined;
  }
}
