import { createHash } from 'node:crypto';
import { DomainError } from '../../../../kernel/errors.js';
import { ARTIFACT_KINDS, type ArtifactKind, type CatalogEntry, parseCatalog } from './catalog.js';
import { type CompiledValidators, compileValidators } from '../validation/compile-validators.js';
import type { ArtifactTexts, PreparedArtifacts } from '../validation/prepare-artifacts.js';
import { type ValidationReport, reportOf } from '../validation/validation-report.js';
import { RefreshQueue } from './refresh-queue.js';
import { type RefreshAsk, announces, followsOnly } from './refresh-ask.js';

/** Port: where the catalog document comes from (inline JSON, a file or a URL). */
export interface CatalogSource {
  /** The parsed catalog document; throws when it cannot be obtained. */
  load(): Promise<unknown>;
  /**
   * Whether the document differs from the one `load` last returned (true before any), asked
   * cheaply (a conditional GET); only sources that can tell have it. Throws when it cannot be asked.
   */
  changed?(): Promise<boolean>;
}

/**
 * Port: the replicas of one deployment tell each other which catalog revision they refreshed to,
 * so that a refresh on one reaches them all.
 */
export interface RegistryNotifier {
  /** Tells every replica (this one included) that this one now serves `revision`. Never rejects. */
  announce(revision: string): Promise<void>;
  /**
   * Calls `heard` with every revision another replica announced from now on (an announcement that
   * no replica made is not heard), and, when announcements may have been missed (it lost its
   * connection and has it back), with the newest one. Resolves once it listens, or its first attempt
   * failed (it keeps trying); never rejects.
   */
  subscribe(heard: (revision: string) => void): Promise<void>;
}

/** Port: fetches an artifact URL; `found:false` means the URL answered 404 (artifact absent). */
export interface ArtifactSource {
  fetch(url: string): Promise<{ found: true; body: Buffer } | { found: false }>;
}

/**
 * Port: `prepareArtifacts` of a version, off the event loop (a worker thread): parsing the published
 * model's artifacts and compiling its JSON Schema holds a thread a third of a second per version.
 * Never rejects: what fails is in the answer's problems.
 */
export interface ArtifactPreparer {
  prepare(texts: ArtifactTexts, rootClass?: string): Promise<PreparedArtifacts>;
}

export interface RegistrySources {
  catalog: CatalogSource;
  artifacts: ArtifactSource;
  preparer: ArtifactPreparer;
  /** The other replicas, when there are any to tell (a shared PostgreSQL store). */
  notifier?: RegistryNotifier;
}

/**
 * What one refresh run gathered: every version's catalog entry with its artifacts, as fetched. A
 * snapshot is plain data, so that one gathering can be installed by every server of a process.
 */
export interface RegistrySnapshot {
  refreshedAt: string;
  versions: Array<{ model: string; version: string; label?: string; rootClass?: string; artifacts: Record<ArtifactKind, ArtifactState> }>;
}

/** What installing a snapshot made of this registry: the run's report, and the snapshot of what it now serves. */
export interface Installed {
  report: RefreshReport;
  revision: string | null;
  /** The artifacts in use (a version that kept its previous working build serves those), for servers that join later. */
  served: RegistrySnapshot;
}

/** The registry's part in a run, as a coordinator drives it. */
export interface RegistryMember {
  /** Loads the catalog and fetches every artifact; throws REGISTRY_ERROR when the catalog cannot be had. */
  gather(): Promise<RegistrySnapshot>;
  /** Compiles the snapshot and swaps it in; `decided`: the run's report, for a server that joins after it. */
  install(snapshot: RegistrySnapshot, decided?: RefreshReport): Promise<Installed>;
  /** Tells the other replicas the revision this one serves. */
  announce(): void;
  /** Asks for a run when the catalog source says its document changed. */
  checkCatalog(): Promise<void>;
  /** The revision served (see `revisionOf`), null before the first load; and the report of the run that brought it. */
  revision(): string | null;
  report(): RefreshReport;
}

/**
 * Port: who decides when a run happens and makes every server of this process install it: the
 * registry alone in one process, or, with WORKERS, the primary for all its workers. Either way one
 * run at a time, joined by every ask made meanwhile (RefreshQueue).
 */
export interface RefreshCoordinator {
  attach(member: RegistryMember): void;
  /** The report of the run that serves this ask: one that started after it was made. */
  ask(ask: RefreshAsk): Promise<RefreshReport>;
}

export type ArtifactState = { state: 'absent' } | { state: 'loaded'; body: Buffer; etag: string } | { state: 'failed'; message: string };

export interface ModelVersion {
  model: string;
  version: string;
  label?: string;
  rootClass?: string;
  artifacts: Record<ArtifactKind, ArtifactState>;
  compiled: CompiledValidators;
  /** The last refresh's failures when this build was kept from an earlier one (see `keepWorking`). */
  refreshProblems?: CompiledValidators['problems'];
}

export interface RegistryError {
  model: string;
  version: string;
  artifact: ArtifactKind;
  message: string;
}

export interface RefreshReport {
  refreshed_at: string;
  models_found: number;
  errors: RegistryError[];
}

export interface RegistryStatus {
  modelsLoaded: number;
  lastRefreshAt: string | null;
  /** What this replica serves (see `revisionOf`); null before the first load. */
  catalogRevision: string | null;
  errors: RegistryError[];
  unsupportedConstraints: number;
  /**
   * Every artifact the catalog lists failed to load and none loaded (a setting keeps them all out,
   * the host is down): versions are listed, but nothing can be validated. A partial failure is not this.
   */
  nothingLoaded: boolean;
}

interface RegistryIndex {
  versions: Map<string, ModelVersion>;
  sorted: ModelVersion[];
  report: RefreshReport;
  revision: string | null;
}

/** Told what the registry did, for metrics and logs; the domain does not know who listens. */
export interface RegistryObserver {
  refreshed(report: RefreshReport, revision: string | null): void;
  validated(report: ValidationReport): void;
  /** A refresh no caller waits for (another replica's, a changed catalog's) failed; the index in use stays. */
  backgroundRefreshFailed?(error: Error): void;
  /** One more version of an install compiled (`done` of `total`): a large catalog's progress. */
  compiled?(done: number, total: number): void;
}

const EMPTY_INDEX: RegistryIndex = { versions: new Map(), sorted: [], report: { refreshed_at: '', models_found: 0, errors: [] }, revision: null };

/**
 * The versioned model registry. A refresh builds a complete new index (catalog, artifacts,
 * compiled validators) and swaps it in at once; readers never see a half-built one. When runs
 * happen, and who else installs them, is the coordinator's: by default this registry alone
 * (LocalRefresh), with WORKERS the primary's (server/registry-conductor.ts).
 */
export class ModelRegistry implements RegistryMember {
  private index: RegistryIndex = EMPTY_INDEX;
  private readonly coordinator: RefreshCoordinator;

  /**
   * `refreshTimeoutMs`: how long a caller's refresh waits for its run (REGISTRY_REFRESH_TIMEOUT_SECS);
   * past it the caller gets REGISTRY_ERROR, while the run goes on and its result is served once it ends.
   */
  constructor(
    private readonly sources: RegistrySources,
    private readonly observer?: RegistryObserver,
    coordinator: RefreshCoordinator = new LocalRefresh(0),
    private readonly refreshTimeoutMs = Infinity,
  ) {
    this.coordinator = coordinator;
    coordinator.attach(this);
  }

  /**
   * The start-up load. With other replicas, this one follows their refreshes from before it loads,
   * so that none announced meanwhile is missed.
   */
  async load(): Promise<RefreshReport> {
    await this.sources.notifier?.subscribe((revision) => void this.follow(revision));
    return this.coordinator.ask({ kind: 'load' });
  }

  /**
   * A caller's refresh: the report of a run that started after it asked, announced to the other
   * replicas; or REGISTRY_ERROR once it has waited `refreshTimeoutMs`.
   */
  refresh(): Promise<RefreshReport> {
    const run = this.coordinator.ask({ kind: 'caller' });
    if (this.refreshTimeoutMs === Infinity) return run;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(refreshTimedOut(this.refreshTimeoutMs)), this.refreshTimeoutMs);
    });
    return Promise.race([run, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Another replica announced that it serves `revision`: refreshed to unless this one serves it
   * already. Not announced again (every replica heard it).
   */
  async follow(revision: string): Promise<void> {
    if (revision === this.index.revision) return;
    try {
      await this.coordinator.ask({ kind: 'follow', revision });
    } catch (error) {
      this.observer?.backgroundRefreshFailed?.(error as Error);
    }
  }

  /** REGISTRY_CATALOG_POLL_SECS: when the catalog source says its document changed, a run that is announced. */
  async checkCatalog(): Promise<void> {
    try {
      if (await this.sources.catalog.changed?.()) await this.coordinator.ask({ kind: 'catalog-changed' });
    } catch (error) {
      this.observer?.backgroundRefreshFailed?.(error as Error);
    }
  }

  announce(): void {
    const { revision } = this.index;
    if (revision !== null) void this.sources.notifier?.announce(revision).catch(() => undefined);
  }

  list(): ModelVersion[] {
    return this.index.sorted;
  }

  /** The model version, or null when the registry has none such. */
  find(model: string, version: string): ModelVersion | null {
    return this.index.versions.get(key(model, version)) ?? null;
  }

  get(model: string, version: string): ModelVersion {
    const found = this.find(model, version);
    if (!found) throw new DomainError('MODEL_NOT_FOUND', `model ${model} version ${version} is not in the registry`, { model, version });
    return found;
  }

  artifact(model: string, version: string, kind: ArtifactKind): { body: Buffer; etag: string } {
    const artifact = this.get(model, version).artifacts[kind];
    if (artifact.state === 'loaded') return artifact;
    if (artifact.state === 'failed') throw new DomainError('REGISTRY_ERROR', artifact.message, { model, version, artifact: kind });
    throw new DomainError('ARTIFACT_NOT_FOUND', `model ${model} version ${version} has no ${kind} artifact`, { model, version, artifact: kind });
  }

  async validate(model: string, version: string, payload: unknown): Promise<ValidationReport> {
    const { compiled } = this.get(model, version);
    if (compiled.problems.length > 0) {
      const names = compiled.problems.map((p) => p.artifact).join(', ');
      throw new DomainError('VALIDATOR_ERROR', `model ${model} version ${version}: ${names} artifact cannot be used for validation`, compiled.problems);
    }
    const report = reportOf(await Promise.all(compiled.validators.map((validator) => validator.validate(payload))));
    this.observer?.validated(report);
    return report;
  }

  status(): RegistryStatus {
    const { sorted, report } = this.index;
    return {
      modelsLoaded: sorted.length,
      lastRefreshAt: report.refreshed_at || null,
      catalogRevision: this.index.revision,
      errors: report.errors,
      unsupportedConstraints: sorted.reduce((sum, v) => sum + v.compiled.unsupportedConstraints, 0),
      nothingLoaded: nothingLoaded(sorted),
    };
  }

  /** Every artifact fetched at once; the run's time is when the last arrived. */
  async gather(): Promise<RegistrySnapshot> {
    const entries = await this.loadCatalog();
    const artifacts = await Promise.all(entries.map((entry) => this.fetchArtifacts(entry)));
    const versions = entries.map(({ model, version, label, rootClass }, i) => ({ model, version, label, rootClass, artifacts: artifacts[i]! }));
    return { refreshedAt: new Date().toISOString(), versions };
  }

  /** Every version compiled (the worker thread works through them in one go), then swapped in at once. */
  async install(snapshot: RegistrySnapshot, decided?: RefreshReport): Promise<Installed> {
    let done = 0;
    const total = snapshot.versions.length;
    const compiling = snapshot.versions.map((entry) => this.compile(entry).finally(() => this.observer?.compiled?.(++done, total)));
    const versions = (await Promise.all(compiling)).map((v) => this.keepWorking(v));
    const report: RefreshReport = decided ?? { refreshed_at: snapshot.refreshedAt, models_found: versions.length, errors: versions.flatMap(errorsOf) };
    const sorted = [...versions].sort(compareVersions);
    const revision = revisionOf(sorted);
    this.index = { versions: new Map(sorted.map((v) => [key(v.model, v.version), v])), sorted, report, revision };
    this.observer?.refreshed(report, revision);
    const served = sorted.map(({ model, version, label, rootClass, artifacts }) => ({ model, version, label, rootClass, artifacts }));
    return { report, revision, served: { refreshedAt: snapshot.refreshedAt, versions: served } };
  }

  revision(): string | null {
    return this.index.revision;
  }

  report(): RefreshReport {
    return this.index.report;
  }

  /**
   * A version whose refreshed artifacts fail (fetch or compile) keeps its previous working build, so
   * a slow, failing or broken artifact host does not take down validation that worked; the refresh
   * still reports each failure. Without a working previous build, the failed one is served.
   */
  private keepWorking(version: ModelVersion): ModelVersion {
    const previous = this.index.versions.get(key(version.model, version.version));
    if (version.compiled.problems.length === 0 || !previous || previous.compiled.problems.length > 0) return version;
    const problems = version.compiled.problems.map((p) => ({ ...p, message: `${p.message}; the previously loaded artifacts stay in use` }));
    return { ...previous, label: version.label, refreshProblems: problems };
  }

  private async loadCatalog(): Promise<CatalogEntry[]> {
    let document: unknown;
    try {
      document = await this.sources.catalog.load();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw new DomainError('REGISTRY_ERROR', `catalog could not be loaded: ${(error as Error).message}`);
    }
    return parseCatalog(document);
  }

  private async fetchArtifacts(entry: CatalogEntry): Promise<Record<ArtifactKind, ArtifactState>> {
    const states = await Promise.all(ARTIFACT_KINDS.map((kind) => this.loadArtifact(entry.artifactUrls[kind])));
    return Object.fromEntries(ARTIFACT_KINDS.map((kind, i) => [kind, states[i]])) as Record<ArtifactKind, ArtifactState>;
  }

  private async compile(entry: RegistrySnapshot['versions'][number]): Promise<ModelVersion> {
    const unchanged = this.unchangedBuild(entry);
    if (unchanged) return { ...entry, compiled: unchanged };
    const { artifacts, rootClass } = entry;
    const texts = { schema: textOf(artifacts.schema), shacl: textOf(artifacts.shacl), owl: textOf(artifacts.owl) };
    const compiled = await compileValidators(await this.sources.preparer.prepare(texts, rootClass), rootClass);
    for (const kind of ARTIFACT_KINDS) {
      const state = artifacts[kind];
      if (state.state === 'failed') compiled.problems.push({ artifact: kind, message: state.message });
    }
    return { ...entry, compiled };
  }

  /**
   * The validators served for this version when they were built from the same artifacts (by ETag)
   * and root class: a refresh compiles only what changed, so that a catalog edit reaches every
   * replica in a fraction of a second (scale.refresh_propagation.ms) and a large model is not
   * compiled again when another one changes.
   */
  private unchangedBuild(entry: RegistrySnapshot['versions'][number]): CompiledValidators | undefined {
    const served = this.index.versions.get(key(entry.model, entry.version));
    if (!served || served.refreshProblems || served.rootClass !== entry.rootClass) return undefined;
    const same = ARTIFACT_KINDS.every((kind) => entry.artifacts[kind].state !== 'failed' && stateTag(entry.artifacts[kind]) === stateTag(served.artifacts[kind]));
    return same ? served.compiled : undefined;
  }

  private async loadArtifact(url: string | undefined): Promise<ArtifactState> {
    if (!url) return { state: 'absent' };
    try {
      const outcome = await this.sources.artifacts.fetch(url);
      if (!outcome.found) return { state: 'absent' };
      return { state: 'loaded', body: outcome.body, etag: etagOf(outcome.body) };
    } catch (error) {
      return { state: 'failed', message: (error as Error).message };
    }
  }
}

/**
 * The coordinator of a registry alone in its process: runs from a RefreshQueue, each gathering and
 * installing here. Asks only to follow revisions this registry serves once the run before them
 * ended (that run brought them) are answered without a run.
 */
export class LocalRefresh implements RefreshCoordinator {
  private member?: RegistryMember;
  private readonly queue: RefreshQueue<RefreshAsk, RefreshReport>;

  /** `spacingMs`: REGISTRY_REFRESH_MIN_INTERVAL_SECS, the least time between the end of one run and the start of the next. */
  constructor(spacingMs: number) {
    this.queue = new RefreshQueue(
      (asks) => this.run(asks),
      spacingMs,
      (asks) => this.alreadyServed(asks),
    );
  }

  attach(member: RegistryMember): void {
    this.member = member;
  }

  ask(ask: RefreshAsk): Promise<RefreshReport> {
    return this.queue.ask(ask);
  }

  /** The report of asks that only follow the revision served (a run brought it): the queue answers them without a run. */
  private alreadyServed(asks: RefreshAsk[]): RefreshReport | undefined {
    const member = this.member!;
    return followsOnly(asks, member.revision()) ? member.report() : undefined;
  }

  private async run(asks: RefreshAsk[]): Promise<RefreshReport> {
    const member = this.member!;
    const { report } = await member.install(await member.gather());
    if (asks.some(announces)) member.announce();
    return report;
  }
}

function refreshTimedOut(timeoutMs: number): DomainError {
  const seconds = timeoutMs / 1000;
  return new DomainError(
    'REGISTRY_ERROR',
    `the refresh did not finish within ${seconds} s (REGISTRY_REFRESH_TIMEOUT_SECS); it goes on, and its result is served once it ends (GET /admin/status, last_refresh_at)`,
    { limit: seconds, measure: 'seconds' },
  );
}

/** 64 bits: enough to tell apart the catalogs one deployment ever serves, short enough to read. */
const REVISION_HEX_DIGITS = 16;

/**
 * The catalog revision: a digest of what a replica serves, every version's catalog entry (model,
 * version, label, root class) with the ETag of each artifact in use (`absent`, `failed`). Two
 * replicas of the same revision answer every listing, artifact and validation alike; URLs are left
 * out, since the same content from another address serves the same.
 */
function revisionOf(sorted: ModelVersion[]): string {
  const served = sorted.map((v) => [v.model, v.version, v.label ?? null, v.rootClass ?? null, ARTIFACT_KINDS.map((kind) => stateTag(v.artifacts[kind]))]);
  return createHash('sha256').update(JSON.stringify(served)).digest('hex').slice(0, REVISION_HEX_DIGITS);
}

function stateTag(state: ArtifactState): string {
  return state.state === 'loaded' ? state.etag : state.state;
}

function nothingLoaded(versions: ModelVersion[]): boolean {
  const states = versions.flatMap((v) => ARTIFACT_KINDS.map((kind) => v.artifacts[kind].state));
  return states.includes('failed') && !states.includes('loaded');
}

function errorsOf(version: ModelVersion): RegistryError[] {
  return (version.refreshProblems ?? version.compiled.problems).map((p) => ({ model: version.model, version: version.version, artifact: p.artifact, message: p.message }));
}

function textOf(state: ArtifactState): string | undefined {
  return state.state === 'loaded' ? state.body.toString('utf8') : undefined;
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

function key(model: string, version: string): string {
  return `${model}\u0000${version}`;
}

function compareVersions(a: ModelVersion, b: ModelVersion): number {
  return a.model < b.model ? -1 : a.model > b.model ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0;
}
