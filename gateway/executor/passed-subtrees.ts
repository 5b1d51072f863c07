/**
 * Subtrees that passed a scan (passthrough.ts), remembered by their bytes: the same bytes at the
 * same place of the same operation pass again without being scanned. A model version's
 * questionnaire is the same bytes in every answer about it, and its scan was a tenth of the
 * gateway's CPU on a varied request (bench/PROFILE.md, "Fourteenth steps"); comparing 107 KB with
 * what was remembered takes a few microseconds.
 *
 * A subtree kept here is an object or a list: JSON's brackets end it, so text that starts with its
 * bytes holds that very value (a number would not: `1` starts `12`). What a hostile or careless
 * subgraph can do to it: make every lookup compare up to SLOTS remembered subtrees (each compare
 * stops at the first byte that differs) and every miss copy one subtree; the memory is bounded by
 * SLOTS × MAX_BYTES, whatever it sends.
 */

/** How many subtrees are remembered, across every operation: the oldest is replaced first. */
const SLOTS = 8;
/** Smaller subtrees are scanned in a few microseconds: not worth a copy. */
const MIN_BYTES = 4 * 1024;
/** Larger ones are not kept (SLOTS of them bound what this holds: 4 MB). */
const MAX_BYTES = 512 * 1024;

interface Passed {
  /** Whose scan passed it: the compiled scan of one operation's field (its shape and selections). */
  scan: object;
  bytes: Buffer;
  /** Its JSON bytes as the request budget counts them (what the scan tallied). */
  budgetBytes: number;
}

export class PassedSubtrees {
  /** Filled up to SLOTS, then each new one replaces the oldest. */
  private readonly slots: Passed[] = [];
  private next = 0;

  /** Where the subtree at `start` of `text` ends and its budget bytes, when `scan` passed those very bytes before. */
  find(scan: object, text: Buffer, start: number): { end: number; bytes: number } | undefined {
    if (!bracketed(text, start)) return undefined;
    for (const passed of this.slots) {
      if (passed.scan !== scan) continue;
      const end = start + passed.bytes.length;
      if (end <= text.length && text.compare(passed.bytes, 0, passed.bytes.length, start, end) === 0) return { end, bytes: passed.budgetBytes };
    }
    return undefined;
  }

  /** `scan` passed `text` from `start` to `end`: kept (a copy, not the answer's buffer) when its size is worth it. */
  remember(scan: object, text: Buffer, start: number, end: number, budgetBytes: number): void {
    const size = end - start;
    if (size < MIN_BYTES || size > MAX_BYTES || !bracketed(text, start)) return;
    this.slots[this.next] = { scan, bytes: Buffer.from(text.subarray(start, end)), budgetBytes };
    this.next = (this.next + 1) % SLOTS;
  }

  /** The bytes held: at most SLOTS × MAX_BYTES. */
  heldBytes(): number {
    return this.slots.reduce((sum, passed) => sum + passed.bytes.length, 0);
  }
}

/** Whether the value at `start` is an object or a list (`{`, `[`): the only ones kept (see above). */
function bracketed(text: Buffer, start: number): boolean {
  const first = text[start];
  return first === 123 || first === 91;
}
