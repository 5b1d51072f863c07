import type { ErrorCode } from '../kernel/errors.js';
import { coreFacade } from './core/routes.js';
import { impactFacade } from './impact/routes.js';
import { indicatorsFacade } from './indicators/routes.js';
import type { OpenApiHead } from './openapi.js';
import { recordsFacade } from './records/routes.js';
import type { ErrorPolicy, Route } from './route-table.js';

export type FacadeName = 'core' | 'indicators' | 'impact' | 'records';

/** What a facade's routes need from the process that serves them. */
export interface FacadeContext {
  /** The facade's OpenAPI document, derived from its routes (rest-facade/openapi.ts). */
  openapi(): unknown;
  /** Prometheus exposition, or null when METRICS_ENABLED is not true. */
  metrics(): Promise<{ contentType: string; body: string } | null>;
  /** `SERVER_JSON_MAX_DEPTH`, for a facade that parses its bodies its own documented way. */
  maxJsonDepth: number;
  /**
   * What `/admin/status` says of the process that answers, not of the models subgraph behind it
   * (in the gateway role another process): how it authenticates callers, whether it serves metrics,
   * the supergraph this edge serves (its version, and its id in the schema registry; null: the committed one).
   */
  edge: { authMode: string; metricsEnabled: boolean; supergraph: { version: string; registryVersion: number | null } };
}

/**
 * One REST facade: its routes (the single source of its paths, operations, OpenAPI document and
 * answers), its error policy, and what its OpenAPI document says besides the paths.
 */
export interface Facade {
  name: FacadeName;
  errors: ErrorPolicy;
  openapi: {
    head: OpenApiHead;
    /** Codes every route may answer (documented on each). */
    commonErrors: readonly ErrorCode[];
    /** Codes every route that authenticates may answer. */
    authErrors: readonly ErrorCode[];
  };
  routes(context: FacadeContext): Route[];
}

/** Every REST facade, each on its own port (DECISIONS section 1): read by the server and by `schema:check`. */
export const FACADES: readonly Facade[] = [coreFacade, indicatorsFacade, impactFacade, recordsFacade];

/** The facades' routes for checks that read only their operations: the context's documents are never produced. */
export function routesForInspection(facade: Facade): Route[] {
  const unused = (): never => {
    throw new Error('route tables built for inspection serve no documents');
  };
  return facade.routes({ openapi: unused, metrics: unused, maxJsonDepth: 0, edge: { authMode: 'none', metricsEnabled: false, supergraph: { version: '', registryVersion: null } } });
}
