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
 * what its variables gave a value to. Read by `schema:check` (which operations a change breaks) and
 * by the gateway's `GET /admin/usage/fields` (what a team may deprecate).
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

  /** Per coordinate touched in the window: requests, last use and clients. */
  fields(): FieldUse[] {
    const byCoordinate = new Map<string, { requests: number; lastSeenMs: number; clients: Map<string, ClientUse> }>();
    for (const group of this.groups) {
      for (const coordinate of group.touched) {
        let found = byCoordinate.get(coordinate);
        if (!found) byCoordinate.set(coordinate, (found = { requests: 0, lastSeenMs: 0, clients: new Map() }));
        for (const row of group.rows) add(found, row);
      }
    }
    return [...byCoordinate]
      .map(([coordinate, found]) => ({ coordinate, requests: found.requests, lastSeenMs: found.lastSeenMs, clients: sortedClients(found.clients) }))
      .sort((a, b) => a.coordinate.localeCompare(b.coordinate));
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
