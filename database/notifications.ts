import type pg from 'pg';
import type { PostgresDatabase } from './database.js';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;
/**
 * A listening session sends nothing: a database host that vanished would go unnoticed for as long
 * as the system's TCP keepalive takes (minutes). A query this often finds out within seconds.
 */
const HEARTBEAT_MS = 10_000;

/** What a handler may ask of the listening session (the state a notification is checked against). */
export type ListeningSession = Pick<pg.Client, 'query'>;

/** The part of pino a listener logs through. */
export interface ListenerLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ChannelSubscription {
  /** NOTIFY reaches the sessions of the same database only: the replicas of one deployment. */
  channel: string;
  /** How the listening session shows in `pg_stat_activity`. */
  applicationName: string;
  /** Who listens, as the log lines name it (`registry`). */
  listener: string;
  /** A notification's payload, with the listening session (to check it against what is recorded). */
  heard(payload: string, session: ListeningSession): Promise<void>;
  /** Listening again after a session was lost or never came up: notifications sent meanwhile were missed. */
  resumed(session: ListeningSession): Promise<void>;
}

/**
 * LISTEN on a channel of a PostgreSQL database, for good: one dedicated session (outside the pool:
 * it is held), which reconnects with a doubling, jittered backoff whenever it is lost, never failing
 * the process, and says so (a warning line, then `resumed` once it listens again).
 */
export class ChannelListener {
  private retryMs = FIRST_RETRY_MS;
  private retry?: NodeJS.Timeout;
  private missed = false;
  private closeCurrent?: () => Promise<void>;
  private closed = false;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly subscription: ChannelSubscription,
    private readonly log: ListenerLog,
  ) {}

  start(): Promise<void> {
    return this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.closeCurrent?.();
  }

  /** One session: listens until it is lost, then schedules the next. */
  private async listen(): Promise<void> {
    if (this.closed) return;
    const { channel, applicationName, listener } = this.subscription;
    const client = this.database.session(applicationName);
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
      if (message.channel === channel && message.payload) void this.subscription.heard(message.payload, client);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      return end(error as Error);
    }
    if (ended) return;
    heartbeat = setInterval(() => void client.query('SELECT 1').catch((error: Error) => end(error)), HEARTBEAT_MS).unref();
    this.retryMs = FIRST_RETRY_MS;
    if (this.missed) {
      this.log.info({}, `${listener}: listening to the other replicas again`);
      await this.subscription.resumed(client);
    }
  }

  private reconnectLater(error: Error | undefined): void {
    this.missed = true;
    const delay = this.retryMs * (0.5 + Math.random() / 2);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.log.warn({ reason: error?.message ?? 'connection ended', retryInMs: Math.round(delay) }, `${this.subscription.listener}: not listening to the other replicas; reconnecting`);
    this.retry = setTimeout(() => void this.listen(), delay);
    this.retry.unref();
  }
}
