import type { UsageExport } from './usage-store.js';

/** What a window of usage is read with: its first day, and clients whose traffic does not count. */
export interface UsageWindow {
  from: string;
  excludedClients?: readonly string[];
}

export interface ClientUse {
  name: string;
  version: string;
  requests: number;
}

/** One operation's traffic in the window among the requests that touched a coordinate. */
export interface OperationUse {
  hash: string;
  name: string | null;
  type: string;
  requests: number;
  lastSeenMs: number;
  clients: ClientUse[];
}

export interface FieldUse {
  coordinate: string;
  requests: number;
  lastSeenMs: number;
  clients: ClientUse[];
}

interface Group {
  hash: string;
  touched: Set<string>;
  rows: Array<{ client: string; version: string; requests: number; lastSeenMs: number }>;
}

/**
 * Usage of a window, indexed by what each request touched: the operation's own coordinates and
 * what its literals and variables gave a value to. Read by `schema:check` (which operations a
 * change breaks); the gateway's `GET /admin/usage/fields` reads the same a page at a time (FieldPage).
 */
export class UsageIndex {
  readonly totalRequests: number;
  private readonly groups: Group[];
  private readonly operations: Map<string, UsageExport['operations'][number]>;

  constructor(usage: UsageExport, window: UsageWindow) {
    this.operations = new Map(usage.operations.map((o) => [o.hash, o]));
    const excluded = new Set(window.excludedClients ?? []);
    const groups = new Map<string, Group>();
    let total = 0;
    for (const count of usage.counts) {
      const operation = this.operations.get(count.hash);
      if (!operation || count.day < window.from || excluded.has(count.client)) continue;
      const key = `${count.hash} ${count.inputs.join(' ')}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { hash: count.hash, touched: new Set([...operation.coordinates, ...count.inputs]), rows: [] }));
      group.rows.push({ client: count.client, version: count.clientVersion, requests: count.count, lastSeenMs: count.lastSeenMs });
      total += count.count;
    }
    this.groups = [...groups.values()];
    this.totalRequests = total;
  }

  /** The operations whose requests touched what `uses` accepts, busiest first. */
  operationsWhere(uses: (touched: ReadonlySet<string>) => boolean): OperationUse[] {
    const byHash = new Map<string, { requests: number; lastSeenMs: number; clients: Map<string, ClientUse> }>();
    for (const group of this.groups) {
      if (!uses(group.touched)) continue;
      let found = byHash.get(group.hash);
      if (!found) byHash.set(group.hash, (found = { requests: 0, lastSeenMs: 0, clients: new Map() }));
      for (const row of group.rows) add(found, row);
    }
    return [...byHash]
      .map(([hash, found]) => {
        const operation = this.operations.get(hash)!;
        return { hash, name: operation.name, type: operation.type, requests: found.requests, lastSeenMs: found.lastSeenMs, clients: sortedClients(found.clients) };
      })
      .sort((a, b) => b.requests - a.requests || (a.name ?? '').localeCompare(b.name ?? ''));
  }
}

function add(found: { requests: number; lastSeenMs: number; clients: Map<string, ClientUse> }, row: Group['rows'][number]): void {
  found.requests += row.requests;
  found.lastSeenMs = Math.max(found.lastSeenMs, row.lastSeenMs);
  const key = `${row.client}\n${row.version}`;
  const client = found.clients.get(key);
  if (client) client.requests += row.requests;
  else found.clients.set(key, { name: row.client, version: row.version, requests: row.requests });
}

function sortedClients(clients: Map<string, ClientUse>): ClientUse[] {
  return [...clients.values()].sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name));
}

/**
 * One page of `GET /admin/usage/fields`: the first `limit` coordinates after `after` (in code point
 * order) that the window's requests touched, each with its requests, last use and clients, and
 * every coordinate touched at all (for what is removable). The window's counts are added a chunk at
 * a time, as the store reads them: what is held is this page's tallies and the touched coordinates
 * (the schema's at most), never the window.
 */
export class FieldPage {
  /** Every coordinate the window's requests touched. */
  readonly touched = new Set<string>();
  totalRequests = 0;
  /** Some coordinate after the page's last was touched too. */
  more = false;
  private readonly tallies = new Map<string, { requests: number; lastSeenMs: number; clients: Map<string, ClientUse> }>();
  /** The page's coordinates, sorted. */
  private readonly order: string[] = [];

  constructor(
    private readonly after: string | null,
    private readonly limit: number,
  ) {}

  /** A chunk of the window's counts, with the coordinates of the operations they name. */
  add(coordinates: ReadonlyMap<string, readonly string[]>, counts: readonly UsageExport['counts'][number][]): void {
    for (const count of counts) {
      const operation = coordinates.get(count.hash);
      if (!operation) continue;
      this.totalRequests += count.count;
      const row = { client: count.client, version: count.clientVersion, requests: count.count, lastSeenMs: count.lastSeenMs };
      for (const coordinate of new Set([...operation, ...count.inputs])) {
        this.touched.add(coordinate);
        if (this.after === null || coordinate > this.after) this.tally(coordinate, row);
      }
    }
  }

  fields(): FieldUse[] {
    return this.order.map((coordinate) => {
      const found = this.tallies.get(coordinate)!;
      return { coordinate, requests: found.requests, lastSeenMs: found.lastSeenMs, clients: sortedClients(found.clients) };
    });
  }

  /**
   * A coordinate's first row decides whether it is on the page: it is, while fewer than `limit`
   * smaller ones are (one pushed out then can never come back, since those stay). So a coordinate
   * on the page has every row of the window in its tally.
   */
  private tally(coordinate: string, row: Group['rows'][number]): void {
    let found = this.tallies.get(coordinate);
    if (!found) {
      if (this.order.length >= this.limit) {
        this.more = true;
        if (coordinate > this.order[this.order.length - 1]!) return;
        this.tallies.delete(this.order.pop()!);
      }
      this.order.splice(sortedIndex(this.order, coordinate), 0, coordinate);
      this.tallies.set(coordinate, (found = { requests: 0, lastSeenMs: 0, clients: new Map() }));
    }
    add(found, row);
  }
}

function sortedIndex(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
