import { createHash } from 'node:crypto';
import { DomainError } from '../../../../kernel/errors.js';
import { ARTIFACT_KINDS, type ArtifactKind, type CatalogEntry, parseCatalog } from './catalog.js';
import { type CompiledValidators, compileValidators } from '../validation/compile-validators.js';
import type { ArtifactTexts, PreparedArtifacts } from '../validation/prepare-artifacts.js';
import { type ValidationReport, reportOf } from '../validation/validation-report.js';

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
   * Calls `heard` with every revision announced from now on, and with null when announcements may
   * have been missed (it lost its connection and has it back). Resolves once it listens, or its
   * first attempt failed (it keeps trying); never rejects.
   */
  subscribe(heard: (revision: string | null) => void): Promise<void>;
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
  /** REGISTRY_REFRESH_MIN_INTERVAL_SECS, in milliseconds: how long after a caller's refresh ends the next may start. */
  minRefreshIntervalMs: number;
  /** The other replicas, when there are any to tell (a shared PostgreSQL store). */
  notifier?: RegistryNotifier;
}

export type ArtifactState =
  | { state: 'absent' }
  | { state: 'loaded'; body: Buffer; etag: string }
  | { state: 'failed'; message: string };

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
}

interface RegistryIndex {
  versions: Map<string, ModelVersion>;
  sorted: ModelVersion[];
  report: RefreshReport;
  revision: string | null;
}

/** Told what the registry did, for metrics and logs; the domain does not know who listens. */
export interface RegistryObserver {
  refreshed(report: RefreshReport): void;
  validated(report: ValidationReport): void;
  /** A refresh no caller waits for (another replica's, a changed catalog's) failed; the index in use stays. */
  backgroundRefreshFailed?(error: Error): void;
}

const EMPTY_INDEX: RegistryIndex = { versions: new Map(), sorted: [], report: { refreshed_at: '', models_found: 0, errors: [] }, revision: null };

/**
 * The versioned model registry. A refresh builds a complete new index (catalog, artifacts,
 * compiled validators) and swaps it in at once; readers never see a half-built one, and concurrent
 * refreshes share the run in flight.
 */
export class ModelRegistry {
  private index: RegistryIndex = EMPTY_INDEX;
  private refreshing: Promise<RefreshReport> | null = null;
  private lastRefreshEnd = -Infinity;

  constructor(
    private readonly sources: RegistrySources,
    private readonly observer?: RegistryObserver,
  ) {}

  /**
   * The start-up load: no caller asked for it, so it does not start the minimum interval of
   * `refresh`. With other replicas, this one follows their refreshes from before it loads, so that
   * none announced meanwhile is missed.
   */
  async load(): Promise<RefreshReport> {
    await this.sources.notifier?.subscribe((revision) => void this.follow(revision));
    return this.run(false);
  }

  /**
   * A caller's refresh. One asked for while a run is in flight shares it. One asked for within the
   * minimum interval after the last caller's refresh ended is TOO_MANY_REQUESTS, with the seconds to
   * wait: each run fetches every artifact and keeps a worker thread busy for up to seconds per version.
   * The caller whose refresh started the run announces its revision to the other replicas.
   */
  refresh(): Promise<RefreshReport> {
    const wait = this.lastRefreshEnd + this.sources.minRefreshIntervalMs - Date.now();
    if (!this.refreshing && wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new DomainError('TOO_MANY_REQUESTS', `the registry was refreshed moments ago: retry in ${seconds} s`, { retry_after_seconds: seconds });
    }
    const starts = !this.refreshing;
    const report = this.run(true);
    if (starts) report.then(() => this.announce(), () => undefined);
    return report;
  }

  /**
   * Another replica announced that it serves `revision` (null: announcements may have been missed).
   * A refresh in flight is awaited first, as it may bring that very revision; then this replica
   * refreshes unless it serves it. Not rate-limited (no caller asked, and announcements are one per
   * refresh elsewhere) and not announced again (every replica heard the first).
   */
  async follow(revision: string | null): Promise<void> {
    try {
      if (this.refreshing) await this.refreshing.catch(() => undefined);
      if (revision !== null && revision === this.index.revision) return;
      await this.run(false);
    } catch (error) {
      this.observer?.backgroundRefreshFailed?.(error as Error);
    }
  }

  /**
   * REGISTRY_CATALOG_POLL_SECS: when the catalog source says its document changed, refreshes and
   * announces the new revision. Skipped while a refresh runs (it loads the catalog anyway).
   */
  async checkCatalog(): Promise<void> {
    try {
      if (this.refreshing || !(await this.sources.catalog.changed?.())) return;
      await this.run(false);
      this.announce();
    } catch (error) {
      this.observer?.backgroundRefreshFailed?.(error as Error);
    }
  }

  private run(askedByCaller: boolean): Promise<RefreshReport> {
    this.refreshing ??= this.rebuild().finally(() => {
      this.refreshing = null;
      if (askedByCaller) this.lastRefreshEnd = Date.now();
    });
    return this.refreshing;
  }

  private announce(): void {
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
    };
  }

  /** Every artifact fetched first, then every version compiled: the worker then works through them in one go. */
  private async rebuild(): Promise<RefreshReport> {
    const entries = await this.loadCatalog();
    const fetched = await Promise.all(entries.map((entry) => this.fetchArtifacts(entry)));
    const versions = (await Promise.all(entries.map((entry, i) => this.loadVersion(entry, fetched[i]!)))).map((v) => this.keepWorking(v));
    const report: RefreshReport = {
      refreshed_at: new Date().toISOString(),
      models_found: versions.length,
      errors: versions.flatMap(errorsOf),
    };
    const sorted = [...versions].sort(compareVersions);
    this.index = { versions: new Map(sorted.map((v) => [key(v.model, v.version), v])), sorted, report, revision: revisionOf(sorted) };
    this.observer?.refreshed(report);
    return report;
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

  private async loadVersion(entry: CatalogEntry, artifacts: Record<ArtifactKind, ArtifactState>): Promise<ModelVersion> {
    const texts = { schema: textOf(artifacts.schema), shacl: textOf(artifacts.shacl), owl: textOf(artifacts.owl) };
    const compiled = await compileValidators(await this.sources.preparer.prepare(texts, entry.rootClass), entry.rootClass);
    for (const kind of ARTIFACT_KINDS) {
      const state = artifacts[kind];
      if (state.state === 'failed') compiled.problems.push({ artifact: kind, message: state.message });
    }
    return { model: entry.model, version: entry.version, label: entry.label, rootClass: entry.rootClass, artifacts, compiled };
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
