import type { ModelRegistry, RegistryError } from '../registry/model-registry.js';

/** The part of the records store that the probes need. */
export interface StoreProbe {
  readonly dialect: { readonly name: string };
  /** Resolves when the store answers; throws otherwise. */
  ping(): Promise<void>;
}

export interface ServiceIdentity {
  service: string;
  serviceVersion: string;
  openapiVersion: string;
}

export interface Readiness {
  ready: boolean;
  modelsAvailable: number;
  store: 'ok' | 'unavailable';
  reasons: string[];
}

export interface RuntimeStatus {
  uptimeSeconds: number;
  service: string;
  serviceVersion: string;
  registry: { modelsLoaded: number; lastRefreshAt: string | null; catalogRevision: string | null; errors: RegistryError[] };
  store: { backend: string };
  authMode: string;
  metricsEnabled: boolean;
  validators: { shacl: { unsupportedConstraints: number } };
}

/** Liveness, readiness, version and status of the core service (DECISIONS section 3, "admin"). */
export class AdminService {
  private readonly startedAt = Date.now();

  constructor(
    private readonly registry: ModelRegistry,
    private readonly store: StoreProbe,
    readonly identity: ServiceIdentity,
    private readonly flags: { authMode: string; metricsEnabled: boolean },
  ) {}

  uptimeSeconds(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }

  async readiness(): Promise<Readiness> {
    const modelsAvailable = this.registry.list().length;
    const store = await this.store.ping().then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
    const reasons = [
      ...(modelsAvailable === 0 ? ['no model is loaded in the registry'] : []),
      ...(this.registry.status().nothingLoaded ? ['no artifact of any model version could be loaded: nothing can be validated (see /admin/status registry.errors)'] : []),
      ...(store === 'ok' ? [] : ['the records store does not answer']),
    ];
    return { ready: reasons.length === 0, modelsAvailable, store, reasons };
  }

  status(): RuntimeStatus {
    const registry = this.registry.status();
    return {
      uptimeSeconds: this.uptimeSeconds(),
      service: this.identity.service,
      serviceVersion: this.identity.serviceVersion,
      registry: { modelsLoaded: registry.modelsLoaded, lastRefreshAt: registry.lastRefreshAt, catalogRevision: registry.catalogRevision, errors: registry.errors },
      store: { backend: this.store.dialect.name },
      authMode: this.flags.authMode,
      metricsEnabled: this.flags.metricsEnabled,
      validators: { shacl: { unsupportedConstraints: registry.unsupportedConstraints } },
    };
  }
}
