import type { DocumentUsage, GivenInputs } from './coordinates.js';
import { type CapName, type CappedRequests, type DailyCaps, type UsageBatch, type UsageCount, type UsageStore, dayOf } from './usage-store.js';

export interface UsageClient {
  name: string;
  version: string;
}

export interface CollectorSettings {
  /** How often counts are written (USAGE_FLUSH_SECS). */
  flushIntervalMs: number;
  /** Distinct (operation, client, day, inputs) counted in memory before a write is due at once. */
  maxEntries: number;
  /** USAGE_RETENTION_DAYS: older counts and operations are deleted, at most once an hour. */
  retentionDays: number;
  /** USAGE_MAX_OPERATIONS_PER_DAY, USAGE_MAX_CLIENTS_PER_DAY, USAGE_MAX_ROWS_PER_DAY: past them, counts go to `other`. */
  caps: DailyCaps;
}

export interface CollectorEvents {
  /** A batch could not be written: it is dropped, and later counts wait in memory until the store answers. */
  writeFailed(error: Error, batch: { operations: number; counts: number; requests: number }): void;
  /** Requests not counted since the last write because memory was full while a write ran or the store was down. */
  dropped(count: number): void;
  /** Old usage could not be deleted (tried again an hour later). */
  purgeFailed(error: Error): void;
  /** A write counted requests under `other` because a day's cap was reached (every time, for the metric). */
  capped(cap: CapName, requests: number): void;
  /** The first time this process found a cap of a day reached (once per cap and day, for the log line). */
  capReached(cap: CapName, day: string, limit: number): void;
}

interface Entry {
  usage: DocumentUsage;
  client: UsageClient;
  day: string;
  inputs: GivenInputs;
  count: number;
  lastSeenMs: number;
}

const HOUR_MS = 3_600_000;

/**
 * Counts executed operations per (operation, client, day, inputs) in memory and writes them in
 * batches. The hot path is two map lookups: by the operation's hash (a string the document keeps,
 * its hash code computed once), then by the short key of client, day and inputs. Memory is
 * bounded: past `maxEntries` a write starts at once, and while it runs (or while the store is
 * down) a full map drops new keys (counted) rather than grow. A database outage loses one batch and
 * never reaches a request: the write that fails is logged by the caller's `writeFailed` and dropped
 * (it is not retried: it may have committed before its answer was lost); later flushes first ask
 * the store whether it answers, and keep counting in memory until it does. The store applies the
 * days' caps as it writes; what it counted under `other` is reported on every write (a metric), and
 * once per cap and day in this process (a warning line).
 */
export class UsageCollector {
  /** By operation hash, then by `client\nversion\nday\ninputs`. */
  private entries = new Map<string, Map<string, Entry>>();
  /** Entries in `entries`, all operations together. */
  private size = 0;
  private writing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private day = '';
  private dayEndsAt = 0;
  private lastPurge = 0;
  private dropped = 0;
  /** The last write failed: the next one waits until the store answers. */
  private storeDown = false;
  /** `cap day` of the caps this process has said are reached (today's and yesterday's at most). */
  private reached = new Set<string>();

  constructor(
    private readonly store: UsageStore,
    private readonly settings: CollectorSettings,
    private readonly events: CollectorEvents,
  ) {
    this.timer = setInterval(() => void this.flush(), settings.flushIntervalMs);
    this.timer.unref();
  }

  count(usage: DocumentUsage, client: UsageClient, inputs: GivenInputs): void {
    const now = Date.now();
    if (now >= this.dayEndsAt) this.turnDay(now);
    const key = `${client.name}\n${client.version}\n${this.day}\n${inputs.key}`;
    let operation = this.entries.get(usage.hash);
    const entry = operation?.get(key);
    if (entry) {
      entry.count += 1;
      entry.lastSeenMs = now;
      return;
    }
    if (this.size >= this.settings.maxEntries) {
      if (this.writing || this.storeDown) {
        this.dropped += 1;
        return;
      }
      void this.flush();
      operation = undefined; // the flush took the map
    }
    if (!operation) this.entries.set(usage.hash, (operation = new Map()));
    operation.set(key, { usage, client, day: this.day, inputs, count: 1, lastSeenMs: now });
    this.size += 1;
  }

  /** Writes what has been counted so far (one write at a time; a caller joins the running one first). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.size === 0) return;
    this.writing = this.writeCounted().finally(() => (this.writing = null));
    await this.writing;
  }

  /** The last batch written, then the store closed. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    await this.store.close();
  }

  private async writeCounted(): Promise<void> {
    if (this.storeDown && !(await this.store.reachable())) return;
    const batch = batchOf(this.entries);
    this.entries = new Map();
    this.size = 0;
    if (this.dropped > 0) this.events.dropped(this.dropped);
    this.dropped = 0;
    await this.write(batch);
  }

  private async write(batch: UsageBatch): Promise<void> {
    let capped: CappedRequests[];
    try {
      capped = await this.store.write(batch, this.settings.caps);
    } catch (error) {
      this.storeDown = true;
      this.events.writeFailed(error as Error, { operations: batch.operations.length, counts: batch.counts.length, requests: batch.counts.reduce((sum, c) => sum + c.count, 0) });
      return;
    }
    this.storeDown = false;
    this.report(capped);
    const now = Date.now();
    if (now - this.lastPurge < HOUR_MS) return;
    this.lastPurge = now;
    await this.store.purge(dayOf(now - this.settings.retentionDays * 86_400_000)).catch((error: Error) => this.events.purgeFailed(error));
  }

  private report(capped: readonly CappedRequests[]): void {
    for (const { cap, day, requests } of capped) {
      this.events.capped(cap, requests);
      if (this.reached.has(`${cap} ${day}`)) continue;
      this.reached.add(`${cap} ${day}`);
      this.events.capReached(cap, day, this.settings.caps[cap]);
    }
  }

  private turnDay(now: number): void {
    // The day before stays: a batch written after midnight may still hold its counts.
    this.reached = new Set([...this.reached].filter((key) => key.endsWith(` ${this.day}`)));
    this.day = dayOf(now);
    this.dayEndsAt = Date.parse(`${this.day}T00:00:00Z`) + 86_400_000;
  }
}

function batchOf(entries: Map<string, Map<string, Entry>>): UsageBatch {
  const operations = new Map<string, DocumentUsage>();
  const counts: UsageCount[] = [];
  for (const operation of entries.values()) {
    for (const { usage, client, day, inputs, count, lastSeenMs } of operation.values()) {
      operations.set(usage.hash, usage);
      counts.push({ hash: usage.hash, client: client.name, clientVersion: client.version, day, inputs: [...inputs.coordinates], count, lastSeenMs });
    }
  }
  return {
    operations: [...operations.values()].map(({ hash, name, type, body, coordinates }) => ({ hash, name, type, body, coordinates })),
    counts,
  };
}
