/**
 * When refresh runs happen (DECISIONS, "Registry refresh"): one at a time; every ask made while a
 * run is in flight joins the one run queued behind it, so an ask is answered by a run that started
 * after it was made, and no number of callers makes more than one run wait; a run starts no sooner
 * than `spacingMs` after the previous one ended. Nobody is refused: an ask waits for its run.
 *
 * A run is given every ask that joined it (`A`), so that it can tell what they want of it (to be
 * announced to other replicas, or only to follow a revision it may already serve). Asks that the run
 * before them already answered (`answered`: every worker of a replica hears one announcement, and
 * the second worker's ask queues behind the run the first one's started) are answered when that run
 * ends, without waiting for the spacing and without counting as a run: a run that did nothing would
 * otherwise push the next real one a whole spacing later (scale.refresh_propagation.ms, bench/PROFILE.md).
 */
export class RefreshQueue<A, R> {
  /** The run that has not started yet: every new ask joins it. */
  private next: { asks: A[]; result: Promise<R> } | null = null;
  /** The run in flight, settled or not; the next one starts after it. */
  private current: Promise<unknown> = Promise.resolve();
  private lastEnd = -Infinity;

  constructor(
    private readonly run: (asks: A[]) => Promise<R>,
    private readonly spacingMs: number,
    private readonly answered: (asks: A[]) => R | undefined = () => undefined,
  ) {}

  ask(ask: A): Promise<R> {
    if (this.next) {
      this.next.asks.push(ask);
      return this.next.result;
    }
    const asks = [ask];
    const result = this.startAfter(this.current, asks);
    this.next = { asks, result };
    return result;
  }

  private async startAfter(previous: Promise<unknown>, asks: A[]): Promise<R> {
    await previous.catch(() => undefined);
    const answer = this.answered(asks);
    if (answer !== undefined) {
      this.next = null;
      return answer;
    }
    const wait = this.lastEnd + this.spacingMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.next = null;
    const running = this.run(asks).finally(() => (this.lastEnd = Date.now()));
    this.current = running;
    return running;
  }
}
