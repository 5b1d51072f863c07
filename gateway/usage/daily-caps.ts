import { type CapName, type CappedRequests, type DailyCaps, OTHER_CLIENT, type UsageCount, type UsageOperation, otherOperation } from './usage-store.js';

/**
 * A day's caps applied to one batch of its counts, first come first served (the store runs it
 * inside its write transaction, which takes turns with every other writer, so that processes and
 * replicas share one day's caps). In order:
 * - a client (name and version) the day does not hold yet, when the day holds `caps.clients`, is
 *   counted as the client `other` (version `other`);
 * - an operation the day does not hold, when it holds `caps.operations`, goes to the day's `other`
 *   operation;
 * - a count row the day does not hold, when it holds `caps.rows` rows (those of `other` aside,
 *   one per client at most), goes to the day's `other` operation.
 * The `other` operation's rows are one per client, without inputs, and the operation keeps every
 * coordinate and input of what went there: a schema check then counts those requests as using all
 * of it (more breaking verdicts, never fewer).
 */

/** What the day holds, as far as the caps ask: every operation and client its counts name. */
export interface DayHolding {
  /** Operations (hashes), `other` aside. */
  operations: Set<string>;
  /** Clients (`clientKey`), the client `other` aside. */
  clients: Set<string>;
}

/** What the rows cap needs to know of the rows a batch would write. */
export interface RowHolding {
  /** Which of them the day holds already. */
  existing: ReadonlySet<string>;
  /** How many rows the day holds, those of `other` operations aside. */
  stored: number;
}

export interface DayWrite {
  /** The rows to write, `other`'s included, one per key. */
  counts: UsageCount[];
  /** Coordinates and inputs of what went to the day's `other` operation; empty when nothing did. */
  other: Set<string>;
  capped: CappedRequests[];
}

export function clientKey(name: string, version: string): string {
  return `${name}\n${version}`;
}

/** A count row's key within its day: operation, client, version and inputs (as stored, space-separated). */
export function rowKey(count: Pick<UsageCount, 'hash' | 'client' | 'clientVersion'>, inputs = (count as UsageCount).inputs.join(' ')): string {
  return `${count.hash}\n${count.client}\n${count.clientVersion}\n${inputs}`;
}

export class DayCaps {
  private readonly other = new Set<string>();
  private readonly otherRows = new Map<string, UsageCount>();
  private readonly capped = new Map<CapName, number>();

  constructor(
    private readonly day: string,
    private readonly caps: DailyCaps,
    private readonly operations: ReadonlyMap<string, UsageOperation>,
  ) {}

  /** The first step: clients, then operations. `holding` takes what is admitted. Returns the rows still to place, one per key. */
  clientsAndOperations(counts: readonly UsageCount[], holding: DayHolding): UsageCount[] {
    const kept = new Map<string, UsageCount>();
    for (const count of counts) {
      const placed = this.client(count, holding.clients);
      if (!admit(holding.operations, placed.hash, this.caps.operations)) {
        this.fold(placed, 'operations');
        continue;
      }
      const key = rowKey(placed);
      const same = kept.get(key);
      kept.set(key, same ? merged(same, placed) : placed);
    }
    return [...kept.values()];
  }

  /** The second step: rows the day does not hold yet, within the rows cap. */
  rows(counts: readonly UsageCount[], rows: RowHolding): DayWrite {
    let stored = rows.stored;
    const written: UsageCount[] = [];
    for (const count of counts) {
      const held = rows.existing.has(rowKey(count));
      if (!held && stored >= this.caps.rows) {
        this.fold(count, 'rows');
        continue;
      }
      if (!held) stored += 1;
      written.push(count);
    }
    return {
      counts: [...written, ...this.otherRows.values()],
      other: this.other,
      capped: [...this.capped].map(([cap, requests]) => ({ cap, day: this.day, requests })),
    };
  }

  private client(count: UsageCount, clients: Set<string>): UsageCount {
    if (count.client === OTHER_CLIENT && count.clientVersion === OTHER_CLIENT) return count;
    if (admit(clients, clientKey(count.client, count.clientVersion), this.caps.clients)) return count;
    this.tally('clients', count.count);
    return { ...count, client: OTHER_CLIENT, clientVersion: OTHER_CLIENT };
  }

  private fold(count: UsageCount, cap: CapName): void {
    this.tally(cap, count.count);
    for (const coordinate of this.operations.get(count.hash)?.coordinates ?? []) this.other.add(coordinate);
    for (const input of count.inputs) this.other.add(input);
    const row = { ...count, hash: otherOperation(this.day), inputs: [] };
    const key = rowKey(row);
    const same = this.otherRows.get(key);
    this.otherRows.set(key, same ? merged(same, row) : row);
  }

  private tally(cap: CapName, requests: number): void {
    this.capped.set(cap, (this.capped.get(cap) ?? 0) + requests);
  }
}

/** Whether `key` is held, or is taken now within `cap`. */
function admit(held: Set<string>, key: string, cap: number): boolean {
  if (held.has(key)) return true;
  if (held.size >= cap) return false;
  held.add(key);
  return true;
}

function merged(a: UsageCount, b: UsageCount): UsageCount {
  return { ...a, count: a.count + b.count, lastSeenMs: Math.max(a.lastSeenMs, b.lastSeenMs) };
}
