import type { SupergraphVersion, SupergraphVersions } from './supergraph-versions.js';

/** What a follower reads of the registry: the newest version at start, then its id (polled), and a newer version once. */
export type VersionSource = Pick<SupergraphVersions, 'newest' | 'newestId' | 'get'>;

/** What a follower tells its process (log lines, metrics). */
export interface FollowerObserver {
  /** `version` now serves; `ms` from the poll that found it to serving it. */
  loaded(version: SupergraphVersion, ms: number): void;
  /** `version` cannot be served (`cause`); the one before serves on, and it is not tried again. */
  refused(version: SupergraphVersion, cause: Error): void;
  /** The registry cannot be read: once per outage, not per poll. */
  unreachable(cause: Error): void;
  /** The registry answers again after an outage. */
  reachable(): void;
}

/**
 * The registry's newest supergraph version, followed: every `pollMs` (a full interval after the
 * last poll ended, so a slow database never has two at once) the newest version's id is read, and
 * a version not tried yet is read whole and handed to `load`, which builds and switches to it or
 * throws. A version that failed is not tried again: the next one appended is. Only the newest is
 * tried: versions appended together are skipped to the last.
 */
export class SupergraphFollower {
  private lastTried: number | null = null;
  private outage = false;
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly versions: VersionSource,
    private readonly pollMs: number,
    private readonly observer: FollowerObserver,
    /** Run before the first read that succeeds (the database's migrations), again after one that failed. */
    private readonly prepare: () => Promise<unknown> = async () => undefined,
  ) {}

  /**
   * The newest version at start, marked tried: undefined when the registry holds none or cannot be
   * read (`unreachable` told).
   */
  async newest(): Promise<SupergraphVersion | undefined> {
    try {
      await this.prepare();
      const version = await this.versions.newest();
      this.lastTried = version?.id ?? null;
      return version;
    } catch (error) {
      this.lost(error as Error);
      return undefined;
    }
  }

  /** Polls from now on, loading each newer version with `load`. */
  start(load: (version: SupergraphVersion) => Promise<void>): void {
    const next = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.polling = this.poll(load).finally(next);
      }, this.pollMs);
      this.timer.unref();
    };
    next();
  }

  /** No further poll; a load under way ends first. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
  }

  private async poll(load: (version: SupergraphVersion) => Promise<void>): Promise<void> {
    let version: SupergraphVersion | undefined;
    const started = performance.now();
    try {
      if (this.outage) await this.prepare();
      const newest = await this.versions.newestId();
      if (newest && newest.id !== this.lastTried) version = await this.versions.get(newest.id);
    } catch (error) {
      this.lost(error as Error);
      return;
    }
    if (this.outage) {
      this.outage = false;
      this.observer.reachable();
    }
    if (!version) return;
    this.lastTried = version.id;
    try {
      await load(version);
    } catch (error) {
      this.observer.refused(version, error as Error);
      return;
    }
    this.observer.loaded(version, Math.round(performance.now() - started));
  }

  private lost(cause: Error): void {
    if (this.outage) return;
    this.outage = true;
    this.observer.unreachable(cause);
  }
}
