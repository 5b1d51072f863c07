import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../kernel/errors.js';
import { parseComputeBody } from '../../subgraphs/impact/domain/compute-request.js';
import type { FacadeResponse, Route } from '../route-table.js';
import { SWAGGER_UI_ASSETS, swaggerUiHtml } from './swagger-ui.js';

const ASSET_TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.png': 'image/png' };

/** The route table of the impact service (doc 03 part II); `maxJsonDepth` is `SERVER_JSON_MAX_DEPTH`. */
export function impactRoutes(openapi: () => unknown, maxJsonDepth?: number): Route[] {
  return [
    {
      method: 'GET',
      path: '/health',
      operation: 'query ImpactHealth { impactHealth { status service version coreBaseUrl backgroundProjectDir } }',
      respond: ({ impactHealth: h }) => ({
        status: 200,
        body: { status: h.status, service: h.service, version: h.version, core_base_url: h.coreBaseUrl, background_project_dir: h.backgroundProjectDir },
      }),
    },
    {
      method: 'GET',
      path: '/capabilities',
      operation: `query ImpactCapabilities { impactCapabilities {
        calculationStatus
        background { projectName databases { name backend format activityCount } methodCount methodExamples }
        engine { dataLibraryVersion calcLibraryVersion }
      } }`,
      respond: ({ impactCapabilities: c }) => ({
        status: 200,
        body: {
          calculation_status: c.calculationStatus,
          background: {
            project_name: c.background.projectName,
            databases: c.background.databases.map((d: Record<string, unknown>) => ({ name: d.name, backend: d.backend, format: d.format, activity_count: d.activityCount })),
            method_count: c.background.methodCount,
            method_examples: c.background.methodExamples,
          },
          engine: { data_library_version: c.engine.dataLibraryVersion, calc_library_version: c.engine.calcLibraryVersion },
        },
      }),
    },
    {
      // FastAPI reads the body whatever its content type; malformed JSON is a 422 in its own shape.
      method: 'POST',
      path: '/compute',
      body: 'raw',
      operation: 'mutation ImpactCompute($request: JSON) { computeImpact(request: $request) }',
      variables: (request) => ({ request: parseComputeBody(request.body as Buffer, maxJsonDepth) ?? null }),
      // The mutation always fails (501 or 422); data without an error would be a broken subgraph.
      respond: () => {
        throw new DomainError('INTERNAL_ERROR', 'internal error');
      },
    },
    { method: 'GET', path: '/openapi.json', local: () => ({ status: 200, body: openapi() }) },
    {
      method: 'GET',
      path: '/docs',
      local: () => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: swaggerUiHtml({ title: 'Impact calculation service' }) }),
    },
    { method: 'GET', path: '/docs/assets/{file}', local: (request) => swaggerAsset(request.params.file!) },
  ];
}

async function swaggerAsset(file: string): Promise<FacadeResponse> {
  if (!(SWAGGER_UI_ASSETS.files as readonly string[]).includes(file)) throw new DomainError('NOT_FOUND', `no such asset: ${file}`);
  const body = await readFile(path.join(SWAGGER_UI_ASSETS.directory, file));
  return { status: 200, headers: { 'content-type': ASSET_TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'max-age=3600' }, body };
}
