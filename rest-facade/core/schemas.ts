import { errorEnvelopeSchema, ref } from '../http/openapi-parts.js';

/** The component schemas of the core facade's OpenAPI document (doc 01, DECISIONS section 3). */
export const CORE_SCHEMAS = {
  Error: errorEnvelopeSchema,
  PayloadRequest: { type: 'object', required: ['payload'], properties: { payload: { type: 'object' } } },
  Violation: {
    type: 'object',
    required: ['path', 'message', 'severity'],
    properties: { path: { type: 'string' }, message: { type: 'string' }, severity: { enum: ['Error', 'Warning', 'Info'] }, constraint: { type: 'string' }, value: {} },
  },
  ValidationReport: {
    type: 'object',
    required: ['passed', 'results'],
    properties: {
      passed: { type: 'boolean' },
      results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['kind', 'passed', 'violations'],
          properties: { kind: { enum: ['JsonSchema', 'Shacl', 'Owl'] }, passed: { type: 'boolean' }, violations: { type: 'array', items: ref('Violation') } },
        },
      },
    },
  },
  Record: {
    type: 'object',
    required: ['id', 'model', 'version', 'payload'],
    properties: { id: { type: 'string' }, model: { type: 'string' }, version: { type: 'string' }, payload: { type: 'object' } },
  },
  Filter: {
    type: 'object',
    properties: {
      where: {
        type: 'array',
        items: { type: 'object', required: ['field', 'op'], properties: { field: { type: 'string' }, op: { enum: ['eq', 'ne', 'in', 'contains', 'exists', 'gt', 'gte', 'lt', 'lte'] }, value: {} } },
      },
      sort: { type: 'array', items: { type: 'object', required: ['field'], properties: { field: { type: 'string' }, direction: { enum: ['asc', 'desc'] } } } },
      limit: { type: 'integer', minimum: 0, maximum: 1000, default: 100 },
      offset: { type: 'integer', minimum: 0, default: 0 },
    },
  },
  RegistryError: { type: 'object', properties: { model: { type: 'string' }, version: { type: 'string' }, artifact: { type: 'string' }, message: { type: 'string' } } },
};
