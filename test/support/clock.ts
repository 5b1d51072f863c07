import { jest } from '@jest/globals';

/**
 * Fakes only `Date`, advancing in real time, so a test can step over a time window (the key set's
 * 30 s refetch cooldown) with `jest.setSystemTime` while servers, sockets and timers run for real.
 * Call it before the system starts: the key set reads its clock (`Date.now`) when it is built.
 */
export function fakeDateOnly(): void {
  jest.useFakeTimers({
    advanceTimers: true,
    doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
  });
}

/** Moves the faked `Date` forward. */
export function stepClock(ms: number): void {
  jest.setSystemTime(Date.now() + ms);
}

export function realClock(): void {
  jest.useRealTimers();
}
