import { createHash } from 'node:crypto';
import { DomainError } from '../../../../kernel/errors.js';
import { ARTIFACT_KINDS, type ArtifactKind, type CatalogEntry, parseCatalog } from './catalog.js';
import { type CompiledValidators, compileValidators } from '../validation/compile-validators.js';
import { type ValidationReport, reportOf } from '../validation/validation-report.js';

/** Port: where the catalog document comes from (inline JSON, a file or a URL). */
export interface CatalogSource {
  /** The parsed catalog document; throws when it cannot be obtained. */
  load(): Promise<unknown>;
}

/** Port: fetches an artifact URL; `found:false` means the URL answered 404 (artifact absent). */
export interface ArtifactSource {
  fetch(url: string): Promise<{ found: true; body: Buffer } | { found: false }>;
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
  errors: RegistryError[];
  unsupportedConstraints: number;
}

interface RegistryIndex {
  versions: Map<string, ModelVersion>;
  sorted: ModelVersion[];
  report: RefreshReport;
}

/** Told what the registry did, for metrics; the domain does not know who listens. */
export interface RegistryObserver {
  refreshed(modelsLoaded: number): void;
  validated(report: ValidationReport): void;
}

const EMPTY_INDEX: RegistryIndex = { versions: new Map(), sorted: [], report: { refreshed_at: '', models_found: 0, errors: [] } };

/**
 * The versioned model registry. A refresh builds a complete new index (catalog, artifacts,
 * compiled validators) and swaps it in at once; readers never see a half-built one, and concurrent
 * refreshes share the run in flight.
 */
export class ModelRegistry {
  private index: RegistryIndex = EMPTY_INDEX;
  private refreshing: Promise<RefreshReport> | null = null;

  constructor(
    private readonly catalog: CatalogSource,
    private readonly artifacts: ArtifactSource,
    private readonly observer?: RegistryObserver,
  ) {}

  refresh(): Promise<RefreshReport> {
    this.refreshing ??= this.rebuild().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  list(): ModelVersion[] {
    return this.index.sorted;
  }

  get(model: string, version: string): ModelVersion {
    const found = this.index.versions.get(key(model, version));
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
      errors: report.errors,
      unsupportedConstraints: sorted.reduce((sum, v) => sum + v.compiled.unsupportedConstraints, 0),
    };
  }

  private async rebuild(): Promise<RefreshReport> {
    const entries = await this.loadCatalog();
    const versions = (await Promise.all(entries.map((entry) => this.loadVersion(entry)))).map((v) => this.keepWorking(v));
    const report: RefreshReport = {
      refreshed_at: new Date().toISOString(),
      models_found: versions.length,
      errors: versions.flatMap(errorsOf),
    };
    const sorted = [...versions].sort(compareVersions);
    this.index = { versions: new Map(sorted.map((v) => [key(v.model, v.version), v])), sorted, report };
    this.observer?.refreshed(sorted.length);
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
      document = await this.catalog.load();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw new DomainError('REGISTRY_ERROR', `catalog could not be loaded: ${(error as Error).message}`);
    }
    return parseCatalog(document);
  }

  private async loadVersion(entry: CatalogEntry): Promise<ModelVersion> {
    const states = await Promise.all(ARTIFACT_KINDS.map((kind) => this.loadArtifact(entry.artifactUrls[kind])));
    const artifacts = Object.fromEntries(ARTIFACT_KINDS.map((kind, i) => [kind, states[i]])) as Record<ArtifactKind, ArtifactState>;
    const compiled = compileValidators(
      { schema: textOf(artifacts.schema), shacl: textOf(artifacts.shacl), owl: textOf(artifacts.owl) },
      entry.rootClass,
    );
    for (const kind of ARTIFACT_KINDS) {
      const state = artifacts[kind];
      if (state.state === 'failed') compiled.problems.push({ artifact: kind, message: state.message });
    }
    return { model: entry.model, version: entry.version, label: entry.label, rootClass: entry.rootClass, artifacts, compiled };
  }

  private async loadArtifact(url: string | undefined): Promise<ArtifactState> {
    if (!url) return { state: 'absent' };
    try {
      const outcome = await this.artifacts.fetch(url);
      if (!outcome.found) return { state: 'absent' };
      return { state: 'loaded', body: outcome.body, etag: etagOf(outcome.body) };
    } catch (error) {
      return { state: 'failed', message: (error as Error).message };
    }
  }
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
