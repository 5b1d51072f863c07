import { DomainError } from '../../../kernel/errors.js';
import type { ComputeRequest } from './compute-request.js';
import type { ImpactConfig } from './impact-config.js';
import { IMPACT_SERVICE_NAME, IMPACT_SERVICE_VERSION } from '../../../kernel/service-identities.js';

/** doc 03 part II field names, kept in snake_case so every layer can pass them through unchanged. */
export interface BackgroundDatabase {
  name: string;
  backend: string;
  format: string | null;
  activity_count: number;
}

export interface BackgroundProject {
  project_name: string;
  databases: BackgroundDatabase[];
  method_count: number;
  /** The first five method keys in sorted order, each key an array of strings. */
  method_examples: string[][];
}

export interface EngineVersions {
  data_library_version: string;
  calc_library_version: string;
}

export interface Capabilities {
  calculation_status: 'not_available';
  background: BackgroundProject;
  engine: EngineVersions;
}

export interface HealthResponse {
  status: 'ok';
  service: string;
  version: string;
  core_base_url: string;
  background_project_dir: string;
}

/**
 * Port: the configured background project, read afresh on every call. Throws
 * BACKGROUND_PROJECT_UNAVAILABLE when it cannot be opened.
 */
export interface BackgroundProjectReader {
  read(): Promise<BackgroundProject>;
  engineVersions(): EngineVersions;
}

/**
 * The impact service's use cases, free of HTTP and GraphQL. Resolvers call these; the REST facade
 * maps a DomainError's code to its status: BACKGROUND_PROJECT_UNAVAILABLE 503,
 * CALCULATION_NOT_IMPLEMENTED 501.
 */
export class ImpactService {
  constructor(
    private readonly config: ImpactConfig,
    private readonly project: BackgroundProjectReader,
  ) {}

  /** Identity and configured locations only: never opens the project (a liveness check). */
  health(): HealthResponse {
    return {
      status: 'ok',
      service: IMPACT_SERVICE_NAME,
      version: IMPACT_SERVICE_VERSION,
      core_base_url: this.config.coreBaseUrl,
      background_project_dir: this.config.backgroundProjectDir,
    };
  }

  /** Opens the project on every call, so it doubles as a readiness check after re-provisioning. */
  async capabilities(): Promise<Capabilities> {
    const background = await this.project.read();
    return { calculation_status: 'not_available', background, engine: this.project.engineVersions() };
  }

  /**
   * Reports that no calculation is available for a valid request (the calculation it would feed
   * does not exist yet). No side effects: no call to the core, no foreground data, the project is
   * not touched.
   */
  compute(_request: ComputeRequest): never {
    throw new DomainError('CALCULATION_NOT_IMPLEMENTED', 'impact calculation is not available: the request is valid, but this service performs no calculation yet');
  }
}
