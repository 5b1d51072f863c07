import { createHash } from 'node:crypto';

/** A label value is at most this long: a longer name is cut and a digest of the whole added. */
export const MAX_LABEL_CHARS = 64;
/** Names that take a label on their first request, before any must be asked for again and again. */
const FIRST_COME = 100;
/** Names that earned a label by being requested often, past the first-come ones. */
const EARNED = 400;
/** Requests among the recent candidates that earn a name its label. */
const EARNS_AFTER = 5;
/** Candidate names counted at once; when full, every count is halved and those at zero go. */
const CANDIDATES = 1_000;

/**
 * Which operation names become label values of `graphql_operation_duration_seconds` in this
 * process (a scrape carries every label set, and a name is the client's own choice):
 * - a name the deployment knows (its REST routes' operations, the trusted documents, the frontend
 *   kit's) always has its own: a flood of other names can never push it out;
 * - any other name has its own if it is among the first FIRST_COME names this process sees, or once
 *   it has been requested EARNS_AFTER times among the recent candidates (CANDIDATES names, whose
 *   counts halve whenever the table fills, so a flood of names sent once ages out and never earns
 *   one), up to EARNED such names; its requests before count as `other`;
 * - every other name is `other`, and a request without a name `anonymous`.
 * Every label is at most MAX_LABEL_CHARS characters: a longer name is cut and ends with a digest
 * of the whole, so that two long names stay apart. Label sets are thus bounded (known + 500 + 2
 * per outcome), and so is every scrape, whatever clients name their operations.
 */
export class OperationLabels {
  private readonly known: ReadonlySet<string>;
  private readonly labelled = new Set<string>();
  private readonly candidates = new Map<string, number>();
  private earned = 0;

  constructor(known: Iterable<string>) {
    this.known = new Set([...known].map(boundedLabel));
  }

  labelOf(name: string | null): string {
    if (name === null) return 'anonymous';
    // Labels, never names, are kept: a 400,000-character name costs a digest, never its length in memory.
    const label = boundedLabel(name);
    if (this.known.has(label) || this.labelled.has(label)) return label;
    if (this.labelled.size < FIRST_COME || this.earns(label)) {
      this.labelled.add(label);
      return label;
    }
    return 'other';
  }

  /** Counts a request of a label not given yet; true when that earns it. */
  private earns(label: string): boolean {
    if (this.earned >= EARNED) return false;
    const seen = (this.candidates.get(label) ?? 0) + 1;
    if (seen >= EARNS_AFTER) {
      this.candidates.delete(label);
      this.earned += 1;
      return true;
    }
    if (!this.candidates.has(label) && this.candidates.size >= CANDIDATES) this.age();
    this.candidates.set(label, seen);
    return false;
  }

  private age(): void {
    for (const [key, seen] of this.candidates) {
      if (seen <= 1) this.candidates.delete(key);
      else this.candidates.set(key, seen >> 1);
    }
  }
}

/** The name, or its first characters and a digest of the whole when it is longer than a label may be. */
export function boundedLabel(name: string): string {
  if (name.length <= MAX_LABEL_CHARS) return name;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 12);
  return `${name.slice(0, MAX_LABEL_CHARS - digest.length - 1)}_${digest}`;
}
