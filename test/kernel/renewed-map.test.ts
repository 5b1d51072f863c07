import { RenewedMap } from '../../kernel/renewed-map.js';

/**
 * kernel/renewed-map.ts: the Map of the fetches in flight and of the answer cache's recency order,
 * whose entries move to a new Map every so many removals. What its users rely on through any number
 * of renewals: every entry set and not deleted is found, none deleted is, the oldest is the first
 * set of those left, and the size is theirs.
 */
describe('RenewedMap', () => {
  it('keeps every entry and the insertion order through many renewals, entries coming and going as requests do', () => {
    const map = new RenewedMap<string, number>();
    const model = new Map<string, number>();
    // 20 entries in flight at a time, 10,000 requests: ~150 renewals.
    for (let n = 0; n < 10_000; n++) {
      map.set(`fetch ${n}`, n);
      model.set(`fetch ${n}`, n);
      if (n >= 20) {
        expect(map.delete(`fetch ${n - 20}`)).toBe(true);
        model.delete(`fetch ${n - 20}`);
      }
      if (n % 997 === 0) {
        expect(map.size).toBe(model.size);
        expect(map.oldest()).toEqual([...model][0]);
        for (const [key, value] of model) expect(map.get(key)).toBe(value);
        expect(map.get(`fetch ${n - 21}`)).toBeUndefined();
      }
    }
    expect(map.delete('fetch 0')).toBe(false);
  });

  it("moves an entry set again to the end (the answer cache's most recently used), past a renewal too", () => {
    const map = new RenewedMap<string, string>();
    for (let n = 0; n < 200; n++) map.set(`answer ${n}`, 'text');
    for (let n = 0; n < 150; n++) {
      map.delete(`answer ${n}`);
      map.set(`answer ${n}`, 'text');
    }
    expect(map.oldest()).toEqual(['answer 150', 'text']);
    expect(map.size).toBe(200);
  });

  it('is empty when every entry is gone, and a careless delete of a missing key changes nothing', () => {
    const map = new RenewedMap<number, number>();
    for (let n = 0; n < 1000; n++) map.set(n, n);
    for (let n = 0; n < 1000; n++) expect(map.delete(n)).toBe(true);
    for (let n = 0; n < 1000; n++) expect(map.delete(n)).toBe(false);
    expect(map.size).toBe(0);
    expect(map.oldest()).toBeUndefined();
  });
});
