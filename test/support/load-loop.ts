import { stopAtScopeEnd } from './cleanup.js';

export interface LoadLoop {
  /** Lets the current step finish, then resolves; the loop is also stopped when its test ends. */
  stop(): Promise<void>;
}

/**
 * Calls `step(0)`, `step(1)`, … one after another until stopped, in `lanes` parallel lanes (each
 * lane numbers its own steps). A step that throws ends nothing: steps record their own outcomes.
 */
export function loadLoop(step: (n: number, lane: number) => Promise<unknown>, lanes = 1): LoadLoop {
  let running = true;
  const lane = async (index: number) => {
    for (let n = 0; running; n++) await step(n, index).catch(() => undefined);
  };
  const done = Promise.all(Array.from({ length: lanes }, (_, index) => lane(index)));
  return {
    stop: stopAtScopeEnd(async () => {
      running = false;
      await done;
    }),
  };
}

/** Polls `condition` every `intervalMs` until it holds or `timeoutMs` passes; resolves with its last value. */
export async function eventually<T>(condition: () => Promise<T> | T, { timeoutMs = 20_000, intervalMs = 50 } = {}): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value || Date.now() >= end) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
