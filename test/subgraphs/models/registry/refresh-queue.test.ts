import { RefreshQueue } from '../../../../subgraphs/models/domain/registry/refresh-queue.js';

/**
 * Issue "The contract holds as deployed", bounded work without refusing callers: one run at a time,
 * every ask made meanwhile joins the one run queued behind it (so each ask is answered by a run that
 * started after it), an optional spacing between runs, and nobody refused.
 */

/** Runs that the test lets finish one by one; each resolves with its number and the asks it served. */
class HeldRuns {
  readonly started: string[][] = [];
  private readonly releases: Array<() => void> = [];

  run = (asks: string[]): Promise<{ run: number; asks: string[] }> => {
    this.started.push(asks);
    const run = this.started.length;
    return new Promise((resolve) => this.releases.push(() => resolve({ run, asks })));
  };

  finish(run: number): void {
    this.releases[run - 1]!();
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('asks made together share one run and one result', async () => {
  const runs = new HeldRuns();
  const queue = new RefreshQueue(runs.run, 0);
  const answers = Promise.all(['a', 'b', 'c'].map((ask) => queue.ask(ask)));
  await settle();
  runs.finish(1);
  expect(await answers).toEqual([1, 1, 1].map(() => ({ run: 1, asks: ['a', 'b', 'c'] })));
  expect(runs.started).toHaveLength(1);
});

test('asks made while a run is in flight all join one run queued behind it, which starts when the first ends', async () => {
  const runs = new HeldRuns();
  const queue = new RefreshQueue(runs.run, 0);
  const first = queue.ask('first');
  await settle();
  const later = Promise.all(['b', 'c', 'd'].map((ask) => queue.ask(ask)));
  await settle();
  expect(runs.started).toEqual([['first']]);
  runs.finish(1);
  expect(await first).toEqual({ run: 1, asks: ['first'] });
  await settle();
  expect(runs.started).toEqual([['first'], ['b', 'c', 'd']]);
  runs.finish(2);
  expect(await later).toEqual([2, 2, 2].map(() => ({ run: 2, asks: ['b', 'c', 'd'] })));
});

test('a run that fails answers its asks with the failure; the next ask gets a run of its own', async () => {
  let calls = 0;
  const queue = new RefreshQueue(async () => {
    calls++;
    if (calls === 1) throw new Error('catalog host down');
    return calls;
  }, 0);
  await expect(Promise.all([queue.ask('a'), queue.ask('b')])).rejects.toThrow('catalog host down');
  await expect(queue.ask('c')).resolves.toBe(2);
});

test('the next run starts no sooner than the spacing after the last one ended; asks made meanwhile wait and join it', async () => {
  const starts: number[] = [];
  const queue = new RefreshQueue(async () => starts.push(Date.now()), 300);
  await queue.ask('a');
  const ended = Date.now();
  const [b, c] = await Promise.all([queue.ask('b'), queue.ask('c')]);
  expect(b).toBe(2);
  expect(c).toBe(2);
  expect(starts[1]! - ended).toBeGreaterThanOrEqual(290);
});

test('asks the run before them already answered get its answer when it ends, without a run or the spacing', async () => {
  const starts: string[][] = [];
  let served = '';
  const queue = new RefreshQueue(
    async (asks: string[]) => {
      starts.push(asks);
      served = asks[0]!;
      return served;
    },
    60_000,
    (asks) => (asks.every((ask) => ask === served) ? served : undefined),
  );
  const first = queue.ask('rev-1');
  await settle();
  const echo = queue.ask('rev-1'); // queued behind the first run, which brings what it asks for
  expect(await Promise.all([first, echo])).toEqual(['rev-1', 'rev-1']);
  expect(starts).toEqual([['rev-1']]);
});
