import { DomainError } from './errors.js';

/** How long a request waits in line for answer memory before it is refused (SERVER_BUSY). */
export const ANSWER_MEMORY_WAIT_MS = 3000;
/**
 * Answers (and reads) of at most this many bytes are small: they never wait for answer memory,
 * they are counted (a screen's page is kilobytes, and no client holding large answers can make it
 * wait), and they are written in one piece (pipeline.ts).
 */
export const LARGE_ANSWER_BYTES = 1024 * 1024;
/** What a refused request's Retry-After says: as STORE_BUSY's, a second. */
const RETRY_AFTER_SECONDS = 1;

interface Waiter {
  bytes: number;
  admit(): void;
}

/**
 * PROCESS_MAX_ANSWER_MB (docs/DEPLOYMENT.md): the bytes of answers this process builds and writes
 * at once, whichever requests they belong to. REQUEST_MAX_RESPONSE_BYTES bounds one answer; twenty
 * answers just under it at once took both workers of a replica past 1.4 GB and their heartbeats
 * with them (issue 35, row 2). A request takes bytes before it reads them (a page of payloads, a
 * copy of an answer shared in flight: RequestBudget.holdAnswer), in line, first come first served:
 * past the bound it waits, at most ANSWER_MEMORY_WAIT_MS and never past its deadline, and is then
 * refused with SERVER_BUSY (503, Retry-After). Bytes already in the process (an answer built,
 * counted as it is measured) and small ones (LARGE_ANSWER_BYTES) are counted without waiting. Everything a request took is given back
 * when it has been answered. A request alone in the process always gets its bytes, however many:
 * one answer is REQUEST_MAX_RESPONSE_BYTES's to bound.
 */
export class AnswerMemory {
  private used = 0;
  private readonly line: Waiter[] = [];

  constructor(readonly limit: number) {}

  /** Bytes taken now, in this process. */
  get inUse(): number {
    return this.used;
  }

  /** Takes `bytes` at once when they fit and no one waits before: whether it did. */
  tryTake(bytes: number): boolean {
    if (this.line.length > 0 || !this.fits(bytes)) return false;
    this.used += bytes;
    return true;
  }

  /** Takes `bytes`, waiting in line at most `waitMs`; SERVER_BUSY when they do not come in time. */
  take(bytes: number, waitMs: number): Promise<void> {
    if (this.tryTake(bytes)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        admit: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(
        () => {
          this.line.splice(this.line.indexOf(waiter), 1);
          reject(serverBusy(this.limit));
          this.admitWaiting(); // the one that gave up may have held up smaller ones behind it
        },
        Math.max(0, waitMs),
      );
      this.line.push(waiter);
    });
  }

  /** Counts bytes already in this process (an answer built): never waits, never refuses. */
  count(bytes: number): void {
    this.used += bytes;
  }

  /** Gives bytes back; whoever waits first and now fits comes in. */
  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    this.admitWaiting();
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limit;
  }

  private admitWaiting(): void {
    while (this.line.length > 0 && this.fits(this.line[0]!.bytes)) {
      const waiter = this.line.shift()!;
      this.used += waiter.bytes;
      waiter.admit();
    }
  }
}

function serverBusy(limit: number): DomainError {
  return new DomainError('SERVER_BUSY', `this process is building and writing as many answers as its memory allows (PROCESS_MAX_ANSWER_MB, ${Math.round(limit / 2 ** 20)}): retry later`, {
    retry_after_seconds: RETRY_AFTER_SECONDS,
  });
}
