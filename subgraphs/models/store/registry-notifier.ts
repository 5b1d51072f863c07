import type { Database, PostgresDatabase } from '../../../database/database.js';
import { ChannelListener, type ListenerLog, type ListeningSession } from '../../../database/notifications.js';
import type { RegistryNotifier } from '../domain/registry/model-registry.js';

/** NOTIFY reaches the sessions of the same database only: the replicas of one deployment. */
export const REGISTRY_CHANNEL = 'cerise_registry_refreshed';
/** How the listener's session shows in `pg_stat_activity` (operators, and the tests that cut it). */
export const LISTENER_APPLICATION_NAME = 'cerise-registry-listener';

/**
 * The replicas' announcements over the records database, when it is PostgreSQL (SQLite is one
 * machine: nothing to tell, undefined).
 */
export function openRegistryNotifier(database: Database, log: ListenerLog): PostgresRegistryNotifier | undefined {
  return database.kind === 'postgresql' ? new PostgresRegistryNotifier(database, log) : undefined;
}

/**
 * LISTEN/NOTIFY on `REGISTRY_CHANNEL` (database/notifications.ts), the payload a catalog revision.
 * A listener that lost its session and listens again follows the newest recorded revision, since
 * announcements made meanwhile were missed. Each announcement opens a short session of its own, so
 * that it does not depend on the listener's state.
 */
export class PostgresRegistryNotifier implements RegistryNotifier {
  private heard?: (revision: string) => void;
  /** The last revision handed on: an announcement repeated (or replayed) is followed once. */
  private followed?: string;
  private readonly listener: ChannelListener;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly log: ListenerLog,
  ) {
    this.listener = new ChannelListener(
      database,
      {
        channel: REGISTRY_CHANNEL,
        applicationName: LISTENER_APPLICATION_NAME,
        listener: 'registry',
        heard: (revision, session) => this.verified(session, revision),
        resumed: (session) => this.verified(session, null),
      },
      log,
    );
  }

  /**
   * Recorded, then notified, in one transaction: listeners follow only the newest recorded revision
   * (`verified`). Rows older than a day go, the newest always stays.
   */
  async announce(revision: string): Promise<void> {
    const client = this.database.session('cerise-registry-announcer');
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
    await this.listener.start();
  }

  close(): Promise<void> {
    return this.listener.close();
  }

  /**
   * Hands on `announced` if it is the newest revision a replica recorded (null: whatever that is,
   * after announcements may have been missed) and not the one handed on last. Any database role may
   * NOTIFY; only the store's own can record, so a forged or replayed announcement causes no refresh.
   */
  private async verified(session: ListeningSession, announced: string | null): Promise<void> {
    let newest: string | undefined;
    try {
      const { rows } = await session.query<{ revision: string }>('SELECT revision FROM registry_revisions ORDER BY announced_at DESC LIMIT 1');
      newest = rows[0]?.revision;
    } catch {
      return; // the session is failing: its error handler reconnects, and then asks again
    }
    if (newest === undefined || (announced !== null && announced !== newest) || newest === this.followed) return;
    this.followed = newest;
    this.heard?.(newest);
  }
}
