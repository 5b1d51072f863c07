import { jsonContent } from '../http/openapi-parts.js';

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

/** The impact service's OpenAPI 3.1 document (doc 03 part II, DECISIONS section 6). */
export function impactOpenApi(version: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Impact calculation service', version },
    paths: {
      '/health': {
        get: {
          summary: 'identity and configured locations (does not open the background project)',
          responses: {
            200: {
              description: 'alive',
              ...jsonContent({
                type: 'object',
                properties: { status: { const: 'ok' }, service: { type: 'string' }, version: { type: 'string' }, core_base_url: { type: 'string' }, background_project_dir: { type: 'string' } },
              }),
            },
          },
        },
      },
      '/capabilities': {
        get: {
          summary: 'databases and impact methods of the background project (a readiness check)',
          responses: {
            200: { description: 'capabilities', ...jsonContent({ type: 'object', properties: { calculation_status: { type: 'string' }, background: { type: 'object' }, engine: { type: 'object' } } }) },
            503: { description: 'BACKGROUND_PROJECT_UNAVAILABLE', ...jsonContent(detailError) },
          },
        },
      },
      '/compute': {
        post: {
          summary: 'compute an Integrated LCA (not available: a valid request answers 501)',
          requestBody: {
            required: true,
            ...jsonContent({
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
            }),
          },
          responses: {
            422: { description: 'request does not satisfy the schema', ...jsonContent(validationError) },
            501: { description: 'CALCULATION_NOT_IMPLEMENTED', ...jsonContent(detailError) },
          },
        },
      },
      '/docs': { get: { summary: 'interactive documentation (Swagger UI, offline)', responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } } } },
      '/openapi.json': { get: { summary: 'this document', responses: { 200: { description: 'OpenAPI 3.1', ...jsonContent({ type: 'object' }) } } } },
    },
  };
}
