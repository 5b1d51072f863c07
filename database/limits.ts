/**
 * How long the records database's users (the records store, usage, the registry's announcements) wait, and on how many connections (docs/DECISIONS.md, "Processes and
 * configuration"; docs/STORE.md, "Connections and bounded waits"). Every wait is bounded: past a
 * bound the operation fails with STORE_BUSY (503, Retry-After), never hangs.
 */
export interface DatabaseLimits {
  /** DATABASE_POOL_SIZE: the PostgreSQL connections this process opens at most (SQLite: one). */
  poolSize: number;
  /** DATABASE_ACQUIRE_TIMEOUT_MS: how long an operation queues for a connection (SQLite: for the write transaction). */
  acquireTimeoutMs: number;
  /** DATABASE_STATEMENT_TIMEOUT_MS: how long one statement, or one transaction, may take. */
  statementTimeoutMs: number;
  /** DATABASE_PING_TIMEOUT_MS: how long the readiness probes wait for the database to answer. */
  pingTimeoutMs: number;
}

/**
 * Ten connections, node-postgres's own default: PostgreSQL's 100 connections serve several processes
 * of ours, and a create holds its connection for a few milliseconds, so a queue of a hundred clears
 * in well under a second. Ten seconds of queueing is five times the 2 s that Prisma allowed and
 * failed at on a busy machine, and the time a connection was already allowed to take to open. Ten
 * seconds a statement: the slowest we run (a query over 100,000 records) takes well under one. Two
 * seconds for the readiness probes: they answer within a couple of seconds, whatever the database.
 */
export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = {
  poolSize: 10,
  acquireTimeoutMs: 10_000,
  statementTimeoutMs: 10_000,
  pingTimeoutMs: 2_000,
};
