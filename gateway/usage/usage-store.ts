/**
 * Usage reporting's port: where the gateway's counted operations go (the records database, through
 * sql-usage-store.ts) and what a schema check reads back. The export is also the file format of
 * `schema:check --usage-file` and the body of the gateway's `GET /admin/usage`.
 */

/** A distinct operation document, its text kept once. */
export interface UsageOperation {
  hash: string;
  name: string | null;
  type: string;
  body: string;
  /** The schema coordinates it touches whatever its variables (gateway/usage/coordinates.ts). */
  coordinates: string[];
}

/** How often one client ran one operation on one day (UTC), with what its variables gave a value to. */
export interface UsageCount {
  hash: string;
  client: string;
  clientVersion: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** Coordinates the request's variables gave a value to (`Type.field.arg!`, `Input.field`, …). */
  inputs: string[];
  count: number;
  /** Epoch milliseconds of the last request counted here. */
  lastSeenMs: number;
}

export interface UsageBatch {
  operations: UsageOperation[];
  counts: UsageCount[];
}

export const USAGE_EXPORT_FORMAT = 'cerise-usage-export';

/** Aggregated usage from a day on: every operation seen since, and its counts. */
export interface UsageExport extends UsageBatch {
  format: typeof USAGE_EXPORT_FORMAT;
  version: 1;
  /** The first day (UTC) the export covers. */
  from: string;
  exportedAt: string;
}

export interface UsageStore {
  /** One batch, in one transaction: it is written entirely or not at all. */
  write(batch: UsageBatch): Promise<void>;
  /** Forgets counts of days before `day` and operations last seen before it. */
  purge(day: string): Promise<void>;
  read(from: string): Promise<UsageExport>;
  /** Whether the database answers now (after a failed write, before the next). */
  reachable(): Promise<boolean>;
  close(): Promise<void>;
}

/** `YYYY-MM-DD` (UTC) of an instant. */
export function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The first day of a window of `days` days ending today (UTC). */
export function windowStart(days: number, now = Date.now()): string {
  return dayOf(now - (days - 1) * 86_400_000);
}
