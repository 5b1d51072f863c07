import type { SqlStatement } from './query-translator.js';

/** Runs a statement with no whole page in its window skips the window before it is tried again. */
const RETRY_AFTER = 100;
/** Statements remembered at most (the oldest is forgotten first): about 1 KB each. */
const REMEMBERED = 1000;

/**
 * Whether to try a query's index-order window first (query-translator.ts, Read.window).
 * The window pays when most records meet the conditions and costs two pages' reads when few do, and
 * PostgreSQL cannot tell which (it has no statistics for payload fields). So the outcome is
 * remembered per statement: one whose window found no whole page is searched directly for its
 * next RETRY_AFTER runs, then tried again, since the data changes (a table too small to fill a
 * page grows).
 */
export class ShortcutMemory {
  private readonly skipping = new Map<string, number>();

  /** Whether to try the window of `statement` now. */
  shouldTry(statement: SqlStatement): boolean {
    const key = keyOf(statement);
    const left = this.skipping.get(key);
    if (left === undefined) return true;
    if (left <= 1) this.skipping.delete(key);
    else this.skipping.set(key, left - 1);
    return false;
  }

  /** The window of `statement` held no whole page. */
  missed(statement: SqlStatement): void {
    const key = keyOf(statement);
    this.skipping.delete(key);
    this.skipping.set(key, RETRY_AFTER);
    if (this.skipping.size > REMEMBERED) this.skipping.delete(this.skipping.keys().next().value!);
  }
}

function keyOf({ sql, values }: SqlStatement): string {
  return JSON.stringify([sql, values]);
}
