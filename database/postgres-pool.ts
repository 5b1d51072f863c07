import pg from 'pg';
import type { PoolStats } from '../kernel/metrics.js';
import type { DatabaseLimits } from './limits.js';

/**
 * How much longer than its statement timeout we wait for PostgreSQL's own answer: the server cancels
 * a statement at `statementTimeoutMs` and says so; only a server that says nothing at all (frozen,
 * or a network that drops packets) runs into this one.
 */
const ANSWER_GRACE_MS = 1_000;
/** TCP keepalive probes start after this long idle, so a database host that vanished is noticed. */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * The one pool of a PostgreSQL store: Prisma's adapter runs its transactions and queries on it, and
 * the translated queries read through it, all with the same bounds (limits.ts):
 * - at most `poolSize` connections; an operation queues for one at most `acquireTimeoutMs`, which
 *   also bounds opening a new one (node-postgres's `connectionTimeoutMillis`);
 * - the server cancels a statement after `statementTimeoutMs`, and ends a session that idles that
 *   long inside a transaction (its locks are not held by a process of ours that stalled);
 * - a server that does not answer at all is given up on `ANSWER_GRACE_MS` later (`query_timeout`).
 */
export function openPool(databaseUrl: string, limits: DatabaseLimits, observer?: PoolObserver): pg.Pool {
  const pool = new (observer ? timedPool(observer) : pg.Pool)({
    connectionString: databaseUrl,
    max: limits.poolSize,
    connectionTimeoutMillis: limits.acquireTimeoutMs,
    statement_timeout: limits.statementTimeoutMs,
    idle_in_transaction_session_timeout: limits.statementTimeoutMs,
    query_timeout: limits.statementTimeoutMs + ANSWER_GRACE_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  // An idle connection the server ends (a restart) is dropped by the pool; unheard, its error
  // would end the process. The next query opens a new connection or fails as STORE_ERROR.
  pool.on('error', () => undefined);
  // The pool stops listening to a connection while it is checked out (Prisma's adapter holds one
  // between a transaction's statements): ended then, its error would be unheard too. The
  // statement in flight, if any, fails on its own; the broken connection is dropped on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  pool.on('release', (error, client) => {
    // The pool drops a connection released with an error (a query's own); Prisma's adapter releases
    // a transaction's connection without one, also after a statement that got no answer. That
    // statement is still in flight: every later one would queue behind it, so it is closed instead
    // (synchronously marked as ending, which the pool checks next, and its socket destroyed).
    if (error === undefined && awaitsAnswer(client)) void client.end();
  });
  return pool;
}

/** What the metrics read of the pool: each wait for a connection, and its counts at a scrape. */
export interface PoolObserver {
  acquired(seconds: number): void;
  watch(stats: () => PoolStats): void;
}

/**
 * A pool that times each wait for a connection: every use goes through `connect` (node-postgres's
 * `query` too, with a callback), and `acquire` events carry no time.
 */
function timedPool(observer: PoolObserver): typeof pg.Pool {
  return class TimedPool extends pg.Pool {
    constructor(config: pg.PoolConfig) {
      super(config);
      observer.watch(() => ({ total: this.totalCount, idle: this.idleCount, waiting: this.waitingCount }));
    }

    override connect(): Promise<pg.PoolClient>;
    override connect(callback: (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
    override connect(callback?: (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<pg.PoolClient> | void {
      const started = performance.now();
      const waited = () => observer.acquired((performance.now() - started) / 1000);
      if (!callback) return super.connect().then((client) => (waited(), client));
      return super.connect((error, client, done) => {
        waited();
        callback(error, client, done);
      });
    }
  };
}

/** node-postgres keeps the statement it waits for in `activeQuery` until the server says it is ready. */
function awaitsAnswer(client: pg.PoolClient): boolean {
  return (client as unknown as { activeQuery?: unknown }).activeQuery != null;
}

/**
 * One read on the pool that PostgreSQL itself stops when `signal` aborts (the request's deadline,
 * kernel/request-budget.ts): node-postgres sends the protocol's CancelRequest on a connection of its
 * own, so the statement ends on the server (57014), not only in this process, and its connection
 * is free again at once. Without a signal, a plain pooled query.
 */
export async function cancellableRead<T>(pool: pg.Pool, databaseUrl: string, sql: string, values: unknown[], signal?: AbortSignal): Promise<T[]> {
  if (!signal) return (await pool.query(sql, values)).rows as T[];
  const client = await pool.connect();
  const cancel = () => {
    const running = (client as unknown as { activeQuery?: unknown }).activeQuery;
    if (running) (new pg.Client(databaseUrl) as unknown as { cancel(client: pg.PoolClient, query: unknown): void }).cancel(client, running);
  };
  signal.addEventListener('abort', cancel, { once: true });
  let failure: Error | undefined;
  try {
    if (signal.aborted) throw new Error('the request ran out of time before its statement started');
    return (await client.query(sql, values)).rows as T[];
  } catch (error) {
    // A cancelled statement leaves its connection usable; any other failure may not (the pool drops it).
    if (!signal.aborted) failure = error as Error;
    throw error;
  } finally {
    signal.removeEventListener('abort', cancel);
    client.release(failure);
  }
}
