/**
 * Whatever a test starts (an in-process system, a child process, a fake upstream, a load loop) is
 * stopped when the scope that started it ends, whatever failed: what a test (or its beforeEach)
 * starts after that test, what a describe block's (or the file's) beforeAll starts after that block.
 * Tests still stop what they start where the order matters; the stop registered here is the
 * resource's own, so stopping twice stops once.
 *
 * The support helpers register themselves (`startTestSystem`, `spawnServer`, `JwksServer.start`, …),
 * so a test that forgets a `finally` cannot leave a server running or keep jest from exiting. The
 * test environment (test-environment.js) opens and closes the scopes as jest enters and leaves them.
 */
type Stop = () => Promise<unknown> | unknown;

/** The scopes jest is in, innermost last; the file's own is always there. */
const scopes: Stop[][] = [[]];

/**
 * Registers `stop` for the current scope and returns it made idempotent: the resource's own stop,
 * so that a test stopping it early and the scope's end share one stop.
 */
export function stopAtScopeEnd(stop: Stop): () => Promise<void> {
  const idempotent = once(stop);
  scopes.at(-1)!.push(idempotent);
  return idempotent;
}

/**
 * `stopAtScopeEnd` bound to the scope it is called in: for a resource that outlives the test that
 * replaces it (a replica restarted in a test of a deployment its describe block started).
 */
export function stopAtThisScopeEnd(): (stop: Stop) => () => Promise<void> {
  const scope = scopes.at(-1)!;
  return (stop) => {
    const idempotent = once(stop);
    scope.push(idempotent);
    return idempotent;
  };
}

/** Stops, newest first, what the innermost scope started; every stop runs even when another fails. */
async function exit(): Promise<void> {
  const stops = (scopes.length > 1 ? scopes.pop()! : scopes[0]!.splice(0)).reverse();
  const failures: unknown[] = [];
  for (const stop of stops) {
    try {
      await stop();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} resource(s) failed to stop`);
}

// The environment lives outside the test's module registry: it reaches this module through the test's global.
(globalThis as { __cleanupScopes?: unknown }).__cleanupScopes = { enter: () => void scopes.push([]), exit };

function once(stop: Stop): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= Promise.resolve().then(async () => void (await stop())));
}
