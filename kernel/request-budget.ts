import { ANSWER_MEMORY_WAIT_MS, type AnswerMemory, LARGE_ANSWER_BYTES } from './answer-memory.js';
import { DomainError, isErrorCode } from './errors.js';

/**
 * What one request may use while it runs (docs/DECISIONS.md, "Reliability and limits"): the static
 * limits (depth, aliases, cost) refuse a document before it runs, but an estimate can be wrong, so
 * these are counted as the request goes. 0 turns a cap off.
 */
export interface BudgetLimits {
  /** REQUEST_MAX_RESPONSE_BYTES: the answer's JSON, and the record payloads and subgraph answers read for it. */
  maxResponseBytes: number;
  /** REQUEST_MAX_RECORDS_READ: records read from the store, across every page and nested connection. */
  maxRecordsRead: number;
  /** REQUEST_MAX_DURATION_MS: wall time from the request's arrival to its answer. */
  maxDurationMs: number;
}

/** The header that carries what is left of a request's budget to a remote subgraph. */
export const BUDGET_HEADER = 'x-request-budget';

/**
 * One request's budget, shared by everything the request runs in this process (the gateway, the
 * subgraphs in process, the store). A charge past a cap throws the cap's DomainError and keeps it
 * as `breach`: the doors answer that error alone, with its status, whatever else the request did.
 */
export interface RequestBudget {
  /** The first cap the request went past, or null. */
  readonly breach: DomainError | null;
  /** Aborted when the deadline passes or a cap is breached: work in flight (a statement, a fetch) stops. */
  readonly signal: AbortSignal | undefined;
  /** Records that may still be read (Infinity without a cap). */
  recordsLeft(): number;
  /** Payload bytes that may still be read (Infinity without a cap). */
  payloadBytesLeft(): number;
  /**
   * Runs the request's reads of records one after another, so that each starts knowing what the
   * ones before it read: concurrent reads (aliases, nested connections) would each hold up to the
   * cap at once.
   */
  inTurn<T>(read: () => Promise<T>): Promise<T>;
  /** Counts records read from the store and their payloads' bytes; throws past a cap. */
  chargeRecords(count: number, bytes: number): void;
  /** Counts bytes of a subgraph's answer as they arrive; throws past the cap. */
  chargeReceived(bytes: number): void;
  /** Measures an answer before it is written (JSON bytes, counted until past the cap); throws past it. */
  chargeAnswer(value: unknown): void;
  /** The JSON bytes of the answer as chargeAnswer measured them; 0 before, or when nothing measures answers. */
  readonly answerBytes: number;
  /**
   * Takes answer memory of this process (kernel/answer-memory.ts) for a read that may bring up to
   * `most` bytes, never waiting: what it took, which may be less than `most` (a share of the
   * process's bound when that is free, else a small read's; the read then asks the database what it
   * would bring, and takes exactly that with holdAnswer).
   */
  holdForRead(most: number): Promise<number>;
  /**
   * Takes exactly `bytes` of answer memory: a large amount waiting in line briefly (SERVER_BUSY,
   * the request's breach, past the wait), a small one (LARGE_ANSWER_BYTES) at once.
   */
  holdAnswer(bytes: number): Promise<void>;
  /** Gives back answer memory taken and not needed (a page smaller than what was taken for it). */
  releaseAnswer(bytes: number): void;
  /** Throws DEADLINE_EXCEEDED once the deadline has passed. */
  checkDeadline(): void;
  /**
   * An operation with a time bound of its own (an admin refresh, REGISTRY_REFRESH_TIMEOUT_SECS):
   * the deadline moves to `maxDurationMs` after the request's arrival, if that is later, but never
   * past what a caller's BUDGET_HEADER said is left. Without a deadline (REQUEST_MAX_DURATION_MS=0)
   * there is none to move. Only the doors call it, for the operations they know.
   */
  extendDeadline(maxDurationMs: number): void;
  /** What is left of a deadline `extendDeadline` moved, in milliseconds; null when none was moved. */
  extendedMsLeft(): number | null;
  /** `work`, or DEADLINE_EXCEEDED at the deadline (the work is then told to stop through `signal`). */
  within<T>(work: Promise<T>): Promise<T>;
  /** A breach a remote subgraph reported: the request's own from now on. */
  adopt(error: DomainError): void;
  /** What is left, for a remote subgraph (BUDGET_HEADER); null without a budget. */
  header(): string | null;
  /** The request is answered: its timer goes. */
  end(): void;
}

/** No caps at all (every cap 0, and exchanges that no budget plugin saw). */
export const NO_BUDGET: RequestBudget = {
  breach: null,
  signal: undefined,
  recordsLeft: () => Infinity,
  payloadBytesLeft: () => Infinity,
  inTurn: (read) => read(),
  chargeRecords: () => undefined,
  chargeReceived: () => undefined,
  chargeAnswer: () => undefined,
  answerBytes: 0,
  holdForRead: async (most) => most,
  holdAnswer: async () => undefined,
  releaseAnswer: () => undefined,
  checkDeadline: () => undefined,
  extendDeadline: () => undefined,
  extendedMsLeft: () => null,
  within: (work) => work,
  adopt: () => undefined,
  header: () => null,
  end: () => undefined,
};

export function budgetOn(limits: BudgetLimits): boolean {
  return limits.maxResponseBytes > 0 || limits.maxRecordsRead > 0 || limits.maxDurationMs > 0;
}

/**
 * A request's budget from the limits, lowered by what a caller's BUDGET_HEADER says is left (the
 * gateway's, for a subgraph port): a header can only shrink the budget, never grow it. `memory`:
 * the process's answer memory (PROCESS_MAX_ANSWER_MB), which the request's reads and answer take from.
 */
export function requestBudget(limits: BudgetLimits, header?: string, memory?: AnswerMemory): RequestBudget {
  return new CountingBudget(lowered(limits, header), headerMs(header) ?? Infinity, memory);
}

/** What a read may take of the process's answer memory before it knows its size: a quarter of the bound, so that a few reads start at once. */
const READ_SHARE = 4;

class CountingBudget implements RequestBudget {
  breach: DomainError | null = null;
  private recordsRead = 0;
  private bytesRead = 0;
  private bytesReceived = 0;
  private reads: Promise<unknown> = Promise.resolve();
  private readonly arrivedAt = Date.now();
  private deadline: number;
  private extended = false;
  /** Made when something asks for the signal (a statement to cancel): most requests never do. */
  private controller: AbortController | undefined;
  /** What `within` rejects at a breach: a plain callback, not an abort listener, which costs a request several microseconds more. */
  private readonly stops: Array<(breach: DomainError) => void> = [];
  private timer: NodeJS.Timeout | undefined;
  /** Answer memory this request has taken, given back when it is answered. */
  private held = 0;
  private ended = false;
  answerBytes = 0;

  /** `ceilingMs`: what a caller's header said is left; no deadline moves past it. */
  constructor(
    private limits: BudgetLimits,
    private readonly ceilingMs: number,
    private readonly memory?: AnswerMemory,
  ) {
    this.deadline = limits.maxDurationMs > 0 ? this.arrivedAt + limits.maxDurationMs : Infinity;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.breach) this.controller.abort();
    }
    return this.controller.signal;
  }

  recordsLeft(): number {
    return this.limits.maxRecordsRead > 0 ? Math.max(0, this.limits.maxRecordsRead - this.recordsRead) : Infinity;
  }

  payloadBytesLeft(): number {
    return this.limits.maxResponseBytes > 0 ? Math.max(0, this.limits.maxResponseBytes - this.bytesRead) : Infinity;
  }

  inTurn<T>(read: () => Promise<T>): Promise<T> {
    if (this.limits.maxResponseBytes === 0 && this.limits.maxRecordsRead === 0) return read();
    const turn = this.reads.then(() => read());
    this.reads = turn.catch(() => undefined);
    return turn;
  }

  chargeRecords(count: number, bytes: number): void {
    this.checkDeadline();
    this.recordsRead += count;
    this.bytesRead += bytes;
    if (this.limits.maxRecordsRead > 0 && this.recordsRead > this.limits.maxRecordsRead) this.fail(tooManyRecords(this.limits.maxRecordsRead));
    if (this.over(this.bytesRead)) this.fail(tooLarge(this.limits.maxResponseBytes));
  }

  /** A subgraph's answer arriving is in this process: counted in its answer memory as it comes (it cannot wait). */
  chargeReceived(bytes: number): void {
    this.bytesReceived += bytes;
    if (this.over(this.bytesReceived)) this.fail(tooLarge(this.limits.maxResponseBytes));
    if (this.memory) {
      this.memory.count(bytes);
      this.held += bytes;
    }
  }

  /** The answer is in this process now: the memory it holds is at least its bytes, counted without waiting. */
  chargeAnswer(value: unknown): void {
    const cap = this.limits.maxResponseBytes;
    if (cap === 0 && !this.memory) return;
    const left = bytesLeftOf(value, cap > 0 ? cap : Number.MAX_SAFE_INTEGER);
    if (left < 0) this.fail(tooLarge(cap));
    this.answerBytes = (cap > 0 ? cap : Number.MAX_SAFE_INTEGER) - left;
    if (this.memory && this.answerBytes > this.held) {
      this.memory.count(this.answerBytes - this.held);
      this.held = this.answerBytes;
    }
  }

  /** A share of the bound when it is free at once; else a small read's bytes, which never wait: the read learns its size. */
  async holdForRead(most: number): Promise<number> {
    if (!this.memory) return most;
    const share = Math.min(most, Math.ceil(this.memory.limit / READ_SHARE));
    if (this.memory.tryTake(share)) {
      this.held += share;
      return share;
    }
    const small = Math.min(most, LARGE_ANSWER_BYTES);
    await this.holdAnswer(small);
    return small;
  }

  async holdAnswer(bytes: number): Promise<void> {
    if (!this.memory || bytes <= 0) return;
    if (bytes <= LARGE_ANSWER_BYTES) {
      this.memory.count(bytes);
      this.held += bytes;
      return;
    }
    this.checkDeadline();
    try {
      await this.memory.take(bytes, Math.min(ANSWER_MEMORY_WAIT_MS, this.deadline - Date.now()));
    } catch (error) {
      this.fail(error as DomainError);
    }
    if (this.ended) {
      // The request was answered while this waited (at its deadline): what came is not its to keep.
      this.memory.give(bytes);
      throw this.breach ?? new DomainError('INTERNAL_ERROR', 'the request was answered while it waited for answer memory');
    }
    this.held += bytes;
  }

  releaseAnswer(bytes: number): void {
    const given = Math.min(bytes, this.held);
    if (!this.memory || given <= 0) return;
    this.held -= given;
    this.memory.give(given);
  }

  checkDeadline(): void {
    if (this.breach) throw this.breach;
    if (Date.now() >= this.deadline) this.fail(deadlineExceeded(this.limits.maxDurationMs));
  }

  extendDeadline(maxDurationMs: number): void {
    const allowed = Math.min(maxDurationMs, this.ceilingMs);
    const deadline = this.arrivedAt + allowed;
    if (deadline <= this.deadline || this.breach) return;
    this.deadline = deadline;
    this.limits = { ...this.limits, maxDurationMs: allowed };
    this.extended = true;
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.expire(), Math.max(0, this.deadline - Date.now()));
  }

  extendedMsLeft(): number | null {
    return this.extended ? Math.max(0, this.deadline - Date.now()) : null;
  }

  within<T>(work: Promise<T>): Promise<T> {
    if (this.deadline === Infinity) return work;
    return new Promise<T>((resolve, reject) => {
      this.timer ??= setTimeout(() => this.expire(), Math.max(0, this.deadline - Date.now()));
      if (this.breach) reject(this.breach);
      else this.stops.push(reject);
      work.then(resolve, reject);
    });
  }

  adopt(error: DomainError): void {
    this.breach ??= error;
    this.controller?.abort();
    for (const stop of this.stops.splice(0)) stop(this.breach);
  }

  header(): string {
    const left = (value: number) => (value === Infinity ? 0 : Math.max(1, value));
    return `ms=${left(this.deadline - Date.now())}, records=${left(this.recordsLeft())}`;
  }

  end(): void {
    clearTimeout(this.timer);
    this.ended = true;
    this.releaseAnswer(this.held);
  }

  private over(bytes: number): boolean {
    return this.limits.maxResponseBytes > 0 && bytes > this.limits.maxResponseBytes;
  }

  private expire(): void {
    try {
      this.fail(deadlineExceeded(this.limits.maxDurationMs));
    } catch {
      // the breach is kept and the signal aborted: whoever awaits the request answers it
    }
  }

  /** Keeps the first breach, stops the work in flight, and throws it. */
  private fail(error: DomainError): never {
    this.adopt(error);
    throw this.breach!;
  }
}

/** The codes of a breached budget, the answer memory's SERVER_BUSY included. */
const BREACH_CODES = new Set(['RESPONSE_TOO_LARGE', 'TOO_MANY_RECORDS_READ', 'DEADLINE_EXCEEDED', 'SERVER_BUSY']);

/**
 * A breach reported in a subgraph answer's errors (a remote subgraph's own budget, or the budget of
 * the request whose fetch this one shared: gateway/executor/inflight-sharing.ts) becomes this
 * request's own, answered alone with its status.
 */
export function adoptReportedBreach(errors: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> | undefined, budget: RequestBudget): void {
  const breached = errors?.find((error) => BREACH_CODES.has(String(error.extensions?.code)));
  const code = breached?.extensions?.code;
  if (breached && isErrorCode(code)) budget.adopt(new DomainError(code, breached.message, breached.extensions?.details ?? null));
}

function lowered(limits: BudgetLimits, header: string | undefined): BudgetLimits {
  if (!header) return limits;
  const sent = sentBy(header);
  const min = (own: number, theirs: number | undefined) => (theirs === undefined ? own : own > 0 ? Math.min(own, theirs) : theirs);
  return { ...limits, maxDurationMs: min(limits.maxDurationMs, sent.ms), maxRecordsRead: min(limits.maxRecordsRead, sent.records) };
}

/** The milliseconds a BUDGET_HEADER says are left; null without one. */
export function headerMs(header: string | undefined): number | null {
  return header ? (sentBy(header).ms ?? null) : null;
}

/** A BUDGET_HEADER's values (`ms=…, records=…`), each a positive integer or left out. */
function sentBy(header: string): { ms?: number; records?: number } {
  const sent: Record<string, number> = {};
  for (const part of header.split(',')) {
    const [name = '', text] = part.trim().split('=');
    const value = Number(text);
    if (Number.isSafeInteger(value) && value > 0) sent[name] = value;
  }
  return { ms: sent.ms, records: sent.records };
}

function tooLarge(limit: number): DomainError {
  return new DomainError('RESPONSE_TOO_LARGE', `the answer would exceed ${limit} bytes (REQUEST_MAX_RESPONSE_BYTES): ask for fewer records or fields at once`, { limit, measure: 'bytes' });
}

function tooManyRecords(limit: number): DomainError {
  return new DomainError('TOO_MANY_RECORDS_READ', `the request would read more than ${limit} records (REQUEST_MAX_RECORDS_READ): ask for smaller pages or fewer nested connections`, {
    limit,
    measure: 'records',
  });
}

function deadlineExceeded(limit: number): DomainError {
  return new DomainError('DEADLINE_EXCEEDED', `the request did not complete within ${limit} ms (REQUEST_MAX_DURATION_MS)`, { limit, measure: 'milliseconds' });
}

/**
 * Whether `value` written as JSON would take more than `cap` bytes, counted without writing it and
 * given up as soon as the count passes the cap: an answer that repeats one 2 MB string a hundred
 * times costs sixteen of them here, not a 218 MB string. Strings count their UTF-8 bytes (long ones
 * exactly, short ones by length) and their quotes; JSON's escapes are not counted. Recursive: an
 * answer is as deep as the operation (GRAPHQL_MAX_DEPTH) plus a JSON value (SERVER_JSON_MAX_DEPTH).
 */
export function jsonBytesPast(value: unknown, cap: number): boolean {
  return bytesLeftOf(value, cap) < 0;
}

/** The JSON bytes of `value`, counted as jsonBytesPast counts them, to the end. */
export function jsonBytes(value: unknown): number {
  return Number.MAX_SAFE_INTEGER - bytesLeftOf(value, Number.MAX_SAFE_INTEGER);
}

/** `cap` less the JSON bytes of `value`, stopping once below 0. */
function bytesLeftOf(value: unknown, cap: number): number {
  return typeof value === 'object' && value !== null ? bytesLeftAfter(value, cap) : cap - leafBytes(value);
}

/**
 * JSON bytes of frozen values shared by many answers (gateway/executor/answer-cache.ts), counted
 * once: the walk below takes a subtree it knows whole. Only subtrees of some size are kept, so
 * that a large answer adds a few entries, not one per object.
 */
const KNOWN_BYTES = new WeakMap<object, number>();
const KNOWN_FROM = 1024;

/**
 * A frozen value whose JSON bytes are known without walking it (kernel/raw-json.ts: a subtree kept
 * as the subgraph's text), counted as jsonBytesPast would count its parsed value.
 */
export function knowJsonBytes(value: object, bytes: number): void {
  KNOWN_BYTES.set(value, bytes);
}

/** The JSON bytes of a value that will never change (frozen), counted as jsonBytesPast counts them and remembered for its walk. */
export function rememberJsonBytes(value: unknown): number {
  if (typeof value !== 'object' || value === null) return leafBytes(value);
  const known = KNOWN_BYTES.get(value);
  if (known !== undefined) return known;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const element of value) bytes += rememberJsonBytes(element);
  } else {
    for (const key in value) bytes += key.length + 4 + rememberJsonBytes((value as Record<string, unknown>)[key]);
  }
  if (bytes >= KNOWN_FROM && Object.isFrozen(value)) KNOWN_BYTES.set(value, bytes);
  return bytes;
}

/**
 * `left` less the JSON bytes of an object or array, stopping once below 0 (the walk of
 * jsonBytesPast). Leaves are counted in the loops, not by a call each: most of an answer is leaves.
 */
function bytesLeftAfter(value: object, left: number): number {
  const known = KNOWN_BYTES.get(value);
  if (known !== undefined) return left - known;
  left -= 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && left >= 0; i++) {
      const element: unknown = value[i];
      left = typeof element === 'object' && element !== null ? bytesLeftAfter(element, left) : left - leafBytes(element);
    }
    return left;
  }
  for (const key in value) {
    const member: unknown = (value as Record<string, unknown>)[key];
    left -= key.length + 4;
    left = typeof member === 'object' && member !== null ? bytesLeftAfter(member, left) : left - leafBytes(member);
    if (left < 0) return left;
  }
  return left;
}

/** A string's UTF-8 bytes (long ones exactly, short ones by length) and quotes; any other leaf as a number's worth. */
function leafBytes(value: unknown): number {
  return typeof value === 'string' ? (value.length > 64 ? Buffer.byteLength(value, 'utf8') : value.length) + 3 : 9;
}
