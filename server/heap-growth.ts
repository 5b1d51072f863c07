import v8 from 'node:v8';

/**
 * How far V8 lets the heap grow past the live objects of the last full collection before the
 * next one. Left to itself, V8 picks up to 4× for a process whose heap may reach 2 GB or more (any
 * machine with 8 GB of memory): a gateway holding 55 MB then keeps up to 220 MB, most of it the
 * garbage of requests in flight, which a flood of distinct documents (each parsed, validated and
 * planned once) promotes at 15 MB/s. 1.5× keeps that flood within 50 MB of a serving process's
 * size for a full collection every ~30 MB promoted (bench/PROFILE.md, "The flood of distinct
 * documents"). V8 reads the flag at each collection, so setting it at startup is enough.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
