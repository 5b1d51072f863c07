import pg from 'pg';
import type { RegistryNotifier } from '../domain/registry/model-registry.js';
import type { StoreLimits } from './store-limits.js';

/** NOTIFY reaches the sessions of the same database only: the replicas of one deployment. */
export const REGISTRY_CHANNEL = 'cerise_registry_refreshed';
/** How the listener's session shows in `pg_stat_activity` (operators, and the tests that cut it). */
export const LISTENER_APPLICATION_NAME = 'cerise-registry-listener';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;
/**
 * A listening session sends nothing: a database host that vanished would go unnoticed for as long
 * as the system's TCP keepalive takes (minutes). A query this often finds out within seconds.
 */
const HEARTBEAT_MS = 10_000;

/** The part of pino the notifier logs through. */
export interface NotifierLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * The replicas' announcements over the records database, when it is PostgreSQL (SQLite is one
 * machine: nothing to tell, undefined).
 */
export function openRegistryNotifier(databaseUrl: string, limits: StoreLimits, log: NotifierLog): PostgresRegistryNotifier | undefined {
  return /^postgres(ql)?:\/\//i.test(databaseUrl) ? new PostgresRegistryNotifier(databaseUrl, limits, log) : undefined;
}

/**
 * LISTEN/NOTIFY on `REGISTRY_CHANNEL`, the payload a catalog revision. One dedicated session
 * listens (outside the store's pool: it is held for good); it reconnects with a doubling, jittered
 * backoff whenever it is lost, never failing the process, and says so with a null revision, since
 * announcements made meanwhile were missed (it then follows the newest recorded revision). Each
 * announcement opens a short session of its own, so that it does not depend on the listener's state.
 */
export class PostgresRegistryNotifier implements RegistryNotifier {
  private heard?: (revision: string) => void;
  /** The last revision handed on: an announcement repeated (or replayed) is followed once. */
  private followed?: string;
  /** Whether announcements may have been missed since the last session (set once one was lost or never came up). */
  private missed = false;
  private retryMs = FIRST_RETRY_MS;
  private retry?: NodeJS.Timeout;
  private closeCurrent?: () => Promise<void>;
  private closed = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly limits: StoreLimits,
    private readonly log: NotifierLog,
  ) {}

  /**
   * Recorded, then notified, in one transaction: listeners follow only the newest recorded revision
   * (`verified`). Rows older than a day go, the newest always stays.
   */
  async announce(revision: string): Promise<void> {
    const client = this.client('cerise-registry-announcer');
    client.on('error', () => undefined); // a failure reaches the query below; unheard, it would end the process
    try {
      await client.connect();
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO registry_revisions (revision, announced_at) VALUES ($1, clock_timestamp())
         ON CONFLICT (revision) DO UPDATE SET announced_at = excluded.announced_at`,
        [revision],
      );
      await client.query(`DELETE FROM registry_revisions WHERE announced_at < now() - interval '1 day' AND revision <> $1`, [revision]);
      await client.query('SELECT pg_notify($1, $2)', [REGISTRY_CHANNEL, revision]);
      await client.query('COMMIT');
    } catch (error) {
      this.log.warn({ reason: (error as Error).message }, 'registry: the refresh could not be announced to the other replicas');
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async subscribe(heard: (revision: string) => void): Promise<void> {
    this.heard = heard;
    await this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.closeCurrent?.();
  }

  /** One session: listens until it is lost, then schedules the next. */
  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = this.client(LISTENER_APPLICATION_NAME);
    let heartbeat: NodeJS.Timeout | undefined;
    let ended: Promise<void> | undefined;
    const end = (error?: Error): Promise<void> => {
      if (ended) return ended;
      ended = client.end().catch(() => undefined);
      clearInterval(heartbeat);
      if (!this.closed) this.reconnectLater(error);
      return ended;
    };
    this.closeCurrent = () => end();
    client.on('error', (error) => void end(error));
    client.on('end', () => void end());
    client.on('notification', (message) => {
      if (message.channel === REGISTRY_CHANNEL && message.payload) void this.verified(client, message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${REGISTRY_CHANNEL}`);
    } catch (error) {
      return end(error as Error);
    }
    if (ended) return;
    heartbeat = setInterval(() => client.query('SELECT 1').catch((error: Error) => end(error)), HEARTBEAT_MS).unref();
    this.retryMs = FIRST_RETRY_MS;
    if (this.missed) {
      this.log.info({}, 'registry: listening to the other replicas again');
      await this.verified(client, null);
    }
  }

  /**
   * Hands on `announced` if it is the newest revision a replica recorded (null: whatever that is,
   * after announcements may have been missed) and not the one handed on last. Any database role may
   * NOTIFY; only the store's own can record, so a forged or replayed announcement causes no refresh.
   */
  private async verified(client: pg.Client, announced: string | null): Promise<void> {
    let newest: string | undefined;
    try {
      const { rows } = await client.query<{ revision: string }>('SELECT revision FROM registry_revisions ORDER BY announced_at DESC LIMIT 1');
      newest = rows[0]?.revision;
    } catch {
      return; // the session is failing: its error handler reconnects, and then asks again
    }
    if (newest === undefined || (announced !== null && announced !== newest) || newest === this.followed) return;
    this.followed = newest;
    this.heard?.(newest);
  }

  private reconnectLater(error: Error | undefined): void {
    this.missed = true;
    const delay = this.retryMs * (0.5 + Math.random() / 2);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.log.warn({ reason: error?.message ?? 'connection ended', retryInMs: Math.round(delay) }, 'registry: not listening to the other replicas; reconnecting');
    this.retry = setTimeout(() => void this.listen(), delay);
    this.retry.unref();
  }

  /** Every wait bounded like the store's (store-limits.ts). */
  private client(applicationName: string): pg.Client {
    return new pg.Client({
      connectionString: this.databaseUrl,
      application_name: applicationName,
      connectionTimeoutMillis: this.limits.acquireTimeoutMs,
      query_timeout: this.limits.pingTimeoutMs,
      keepAlive: true,
    });
  }
}
