import type { Route } from './route-table.js';
import { coreRoutes } from './core/routes.js';
import { impactRoutes } from './impact/routes.js';
import { indicatorRoutes } from './indicators/routes.js';
import { recordsRoutes } from './records/routes.js';

export interface FacadeRoute {
  facade: string;
  route: Route;
}

/** Operations only are read from these tables, so the HTTP-only documents are never produced. */
const noDocument = (): never => {
  throw new Error('route tables built for inspection serve no documents');
};

/**
 * Every facade's route table, for checks that read the operation documents (`npm run schema:check`).
 * A facade added to `server/system.ts` belongs here too, or its operations go unchecked.
 */
export function allFacadeRoutes(): FacadeRoute[] {
  const tables: Record<string, Route[]> = {
    core: coreRoutes({ openapi: noDocument, metrics: noDocument }),
    indicators: indicatorRoutes(noDocument),
    impact: impactRoutes(noDocument),
    records: recordsRoutes(noDocument),
  };
  return Object.entries(tables).flatMap(([facade, routes]) => routes.map((route) => ({ facade, route })));
}
