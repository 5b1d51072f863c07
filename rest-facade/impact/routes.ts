import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../kernel/errors.js';
import { IMPACT_SERVICE_VERSION } from '../../kernel/service-identities.js';
import type { Facade } from '../facades.js';
import { WITHOUT_AUTHENTICATION } from '../openapi.js';
import { ImpactCapabilitiesDocument, ImpactComputeDocument, ImpactHealthDocument } from '../generated/operations.js';
import { jsonContent, ok } from '../http/openapi-parts.js';
import { type FacadeResponse, operationRoute } from '../route-table.js';
import { parseComputeBody } from './compute-body.js';
import { computeImpactInput, validateComputeRequest } from './compute-request.js';
import { impactErrors } from './errors.js';
import { SWAGGER_UI_ASSETS, swaggerUiHtml } from './swagger-ui.js';

const ASSET_TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.png': 'image/png' };

const detailError = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } } },
};

const validationError = {
  type: 'object',
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'loc', 'msg'],
        properties: { type: { type: 'string' }, loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, msg: { type: 'string' }, input: {} },
      },
    },
  },
};

const computeRequest = {
  type: 'object',
  required: ['model_versions', 'product_system'],
  properties: {
    model_versions: {
      type: 'object',
      required: ['product_system', 'lci_dataset', 'integrated_lca'],
      properties: { product_system: { type: 'string' }, lci_dataset: { type: 'string' }, integrated_lca: { type: 'string' } },
    },
    product_system: { type: 'object' },
    lci_datasets: { type: 'array', items: { type: 'object' }, default: [] },
    assessment_context: { type: 'object', default: {} },
  },
};

/** The impact service (doc 03 part II, DECISIONS section 6): each path is one GraphQL operation of impact/operations.graphql. */
export const impactFacade: Facade = {
  name: 'impact',
  errors: impactErrors,
  openapi: {
    head: { title: 'Impact calculation service', version: IMPACT_SERVICE_VERSION, schemas: {}, errorSchema: detailError, bearer: false },
    ...WITHOUT_AUTHENTICATION,
  },
  routes: (context) => [
    operationRoute({
      method: 'GET',
      path: '/health',
      operation: ImpactHealthDocument,
      respond: ({ health: { impact: h } }) => ({
        status: 200,
        body: { status: h.status, service: h.service, version: h.version, core_base_url: h.coreBaseUrl, background_project_dir: h.backgroundProjectDir },
      }),
      openapi: {
        summary: 'identity and configured locations (does not open the background project)',
        responses: ok('alive', {
          type: 'object',
          properties: { status: { const: 'ok' }, service: { type: 'string' }, version: { type: 'string' }, core_base_url: { type: 'string' }, background_project_dir: { type: 'string' } },
        }),
      },
    }),
    operationRoute({
      method: 'GET',
      path: '/capabilities',
      operation: ImpactCapabilitiesDocument,
      respond: ({ impactCapabilities: c }) => ({
        status: 200,
        body: {
          calculation_status: c.calculationStatus,
          background: {
            project_name: c.background.projectName,
            databases: c.background.databases.map((d) => ({ name: d.name, backend: d.backend, format: d.format, activity_count: d.activityCount })),
            method_count: c.background.methodCount,
            method_examples: c.background.methodExamples,
          },
          engine: { data_library_version: c.engine.dataLibraryVersion, calc_library_version: c.engine.calcLibraryVersion },
        },
      }),
      openapi: {
        summary: 'databases and impact methods of the background project (a readiness check)',
        responses: ok('capabilities', { type: 'object', properties: { calculation_status: { type: 'string' }, background: { type: 'object' }, engine: { type: 'object' } } }),
      },
      errors: ['BACKGROUND_PROJECT_UNAVAILABLE'],
    }),
    operationRoute({
      // FastAPI reads the body whatever its content type; malformed JSON and a body its schema refuses are 422s in its own shape.
      method: 'POST',
      path: '/compute',
      body: 'raw',
      operation: ImpactComputeDocument,
      variables: (request) => {
        const body = parseComputeBody(request.body as Buffer, context.maxJsonDepth);
        return { input: computeImpactInput(validateComputeRequest(body)) };
      },
      // The mutation always fails (CALCULATION_NOT_IMPLEMENTED, 501); data without an error would be a broken subgraph.
      respond: () => {
        throw new DomainError('INTERNAL_ERROR', 'internal error');
      },
      openapi: {
        summary: 'compute an Integrated LCA (not available: a valid request answers 501)',
        requestBody: { required: true, ...jsonContent(computeRequest) },
        responses: {
          400: { description: 'the body cannot be decoded', ...jsonContent({ type: 'object', properties: { detail: { type: 'string' } } }) },
          422: { description: 'request does not satisfy the schema', ...jsonContent(validationError) },
        },
      },
      errors: ['CALCULATION_NOT_IMPLEMENTED'],
    }),
    {
      method: 'GET',
      path: '/openapi.json',
      local: () => ({ status: 200, body: context.openapi() }),
      openapi: { summary: 'this document', responses: ok('OpenAPI 3.1', { type: 'object' }) },
    },
    {
      method: 'GET',
      path: '/docs',
      local: () => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: swaggerUiHtml({ title: 'Impact calculation service' }) }),
      openapi: { summary: 'interactive documentation (Swagger UI, offline)', responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } } },
    },
    { method: 'GET', path: '/docs/assets/{file}', openapi: null, local: (request) => swaggerAsset(request.params.file!) },
  ],
};

async function swaggerAsset(file: string): Promise<FacadeResponse> {
  if (!(SWAGGER_UI_ASSETS.files as readonly string[]).includes(file)) throw new DomainError('NOT_FOUND', `no such asset: ${file}`);
  const body = await readFile(path.join(SWAGGER_UI_ASSETS.directory, file));
  return { status: 200, headers: { 'content-type': ASSET_TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'max-age=3600' }, body };
}
