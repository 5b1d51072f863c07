/**
 * Usage reporting's port: where the gateway's counted operations go (the records database, through
 * sql-usage-store.ts) and what a schema check reads back. A page of the export is also the file
 * format of `schema:check --usage-file` (one page holding everything) and the body of the gateway's
 * `GET /admin/usage`.
 */

/**
 * A distinct operation, kept once: its usage reporting signature (Apollo's: every literal emptied,
 * aliases dropped, sorted, whitespace reduced), never the document as the client sent it.
 */
export interface UsageOperation {
  /** sha256 of the signature; `other:<day>` for the operations a day's caps sent to `other`. */
  hash: string;
  name: string | null;
  /** query or mutation; `other` for the `other` operation of a day. */
  type: string;
  /**
   * The signature; empty when nothing can be validated: an `other` operation, a signature longer
   * than MAX_SIGNATURE_CHARS, or an operation recorded before signatures (its text was dropped).
   */
  body: string;
  /**
   * The schema coordinates its signature touches whatever its variables (gateway/usage/coordinates.ts);
   * for an `other` operation, every coordinate that the operations counted there touched.
   */
  coordinates: string[];
}

/** How often one client ran one operation on one day (UTC), with what its literals and variables gave a value to. */
export interface UsageCount {
  hash: string;
  client: string;
  clientVersion: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** Coordinates the request's literals and variables gave a value to (`Type.field.arg!`, `Input.field`, …) beyond the signature's. */
  inputs: string[];
  count: number;
  /** Epoch milliseconds of the last request counted here. */
  lastSeenMs: number;
}

export interface UsageBatch {
  operations: UsageOperation[];
  counts: UsageCount[];
}

/** The name and version the requests of clients past a day's cap are counted under. */
export const OTHER_CLIENT = 'other';
export const OTHER_TYPE = 'other';

/** The operation a day's counts past a cap go to. */
export function otherOperation(day: string): string {
  return `other:${day}`;
}

export function isOtherOperation(hash: string): boolean {
  return hash.startsWith('other:');
}

/** A signature longer than this is kept without its text (coordinates and counts only). */
export const MAX_SIGNATURE_CHARS = 32 * 1024;

/**
 * What one day may hold, whichever process writes (USAGE_MAX_OPERATIONS_PER_DAY,
 * USAGE_MAX_CLIENTS_PER_DAY, USAGE_MAX_ROWS_PER_DAY): distinct operations, distinct clients (name
 * and version) and count rows. Past a cap, a count goes to `other`.
 */
export interface DailyCaps {
  operations: number;
  clients: number;
  rows: number;
}

export type CapName = keyof DailyCaps;

/** Requests a write counted under `other` because a cap of a day was reached. */
export interface CappedRequests {
  cap: CapName;
  day: string;
  requests: number;
}

export const USAGE_EXPORT_FORMAT = 'cerise-usage-export';

/** A count row's key, the position of an export page: the page holds the rows after it. */
export interface CountKey {
  hash: string;
  client: string;
  clientVersion: string;
  day: string;
  inputs: string;
}

export interface PageRequest {
  /** The first day (UTC) of the window. */
  from: string;
  /** Rows after this key; null from the first. */
  after: CountKey | null;
  /** Count rows at most. */
  limit: number;
  /** The page's operations and counts as JSON take at most this many bytes (at least one row is given whatever its size). */
  maxBytes: number;
  /** False: operations without their text (a walk of coordinates). */
  bodies: boolean;
}

export interface UsagePage extends UsageBatch {
  /** Where the next page starts; null after the last. */
  next: CountKey | null;
}

/** Aggregated usage from a day on: the operations its counts name, and the counts; a page of it when `next` is set. */
export interface UsageExport extends UsageBatch {
  format: typeof USAGE_EXPORT_FORMAT;
  version: 1;
  /** The first day (UTC) the export covers. */
  from: string;
  exportedAt: string;
  /** The cursor of the next page (`GET /admin/usage?cursor=`); absent or null on the last. */
  next?: string | null;
}

export interface UsageStore {
  /**
   * One batch, in one transaction, taking turns with every other writer: it is written entirely or
   * not at all, and what would pass a day's caps is written under `other`, as the answer says.
   */
  write(batch: UsageBatch, caps: DailyCaps): Promise<CappedRequests[]>;
  /** Forgets counts of days before `day` and operations last seen before it. */
  purge(day: string): Promise<void>;
  /** A page of the counts of the window in key order, with the operations they name. */
  page(request: PageRequest): Promise<UsagePage>;
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

/** The whole window, page after page (the command line's reader: its memory is its own). */
export async function readWindow(store: UsageStore, from: string): Promise<UsageExport> {
  const operations = new Map<string, UsageOperation>();
  const counts: UsageCount[] = [];
  let after: CountKey | null = null;
  do {
    const page: UsagePage = await store.page({ from, after, limit: 10_000, maxBytes: Infinity, bodies: true });
    for (const operation of page.operations) operations.set(operation.hash, operation);
    counts.push(...page.counts);
    after = page.next;
  } while (after);
  return { format: USAGE_EXPORT_FORMAT, version: 1, from, exportedAt: new Date().toISOString(), operations: [...operations.values()], counts };
}
