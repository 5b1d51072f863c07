import { DomainError } from '../../kernel/errors.js';
import { metricsDisabled } from '../../kernel/metrics.js';
import type { Facade } from '../facades.js';
import {
  CoreArtifactDocument,
  CoreCreateRecordDocument,
  CoreHealthDocument,
  CoreModelsCountDocument,
  CoreModelsDocument,
  CoreQueryRecordsDocument,
  CoreReadinessDocument,
  CoreRefreshRegistryDocument,
  CoreStatusDocument,
  CoreValidateDocument,
  CoreVersionDocument,
} from '../generated/operations.js';
import { objectBody, objectMember, replayHeaders } from '../http/envelopes.js';
import { jsonContent, ok, pathParameter, ref } from '../http/openapi-parts.js';
import { type FacadeRequest, type FacadeResponse, type Route, operationRoute } from '../route-table.js';
import { artifactKindOf, modelNotFound, registryError, restReport } from './graph-terms.js';
import { coreErrors } from './errors.js';
import { CORE_SCHEMAS } from './schemas.js';

/** `info.version` of the served document, reported by `/admin/version` as `openapi_version`. */
export const CORE_OPENAPI_VERSION = '1.0.0';

const MODEL_VERSION = '/models/{model}/versions/{version}';
const modelParameters = [pathParameter('model', 'model id'), pathParameter('version', 'model version')];

const json = (body: unknown, status = 200): FacadeResponse => ({ status, body });
const modelVersion = (request: FacadeRequest) => ({ model: request.params.model!, version: request.params.version! });

/** The model version of the URL, which the registry must hold (404 MODEL_NOT_FOUND otherwise). */
function found<T>(version: T | null, request: FacadeRequest): T {
  if (version === null) throw modelNotFound(modelVersion(request));
  return version;
}

/** The core service (doc 01): each path is one GraphQL operation of core/operations.graphql. */
export const coreFacade: Facade = {
  name: 'core',
  errors: coreErrors,
  openapi: {
    head: { title: 'CE-RISE core model validation and record service', version: CORE_OPENAPI_VERSION, schemas: CORE_SCHEMAS, errorSchema: ref('Error'), bearer: true },
    commonErrors: ['INTERNAL_ERROR', 'RESPONSE_TOO_LARGE', 'TOO_MANY_RECORDS_READ', 'DEADLINE_EXCEEDED'],
    authErrors: ['UNAUTHORIZED', 'FORBIDDEN', 'AUTH_UNAVAILABLE'],
  },
  routes: (context) => [
    operationRoute({
      method: 'POST',
      path: `${MODEL_VERSION}:validate`,
      body: 'json',
      operation: CoreValidateDocument,
      variables: (request) => ({ ...modelVersion(request), payload: objectMember(objectBody(request.body), 'payload', true)! }),
      respond: (data, request) => json(restReport(found(data.modelVersion, request).validation)),
      openapi: {
        summary: 'validate a payload (200 with passed:false for an invalid payload)',
        parameters: modelParameters,
        requestBody: { required: true, ...jsonContent(ref('PayloadRequest')) },
        responses: ok('validation report', ref('ValidationReport')),
      },
      errors: ['MODEL_NOT_FOUND', 'VALIDATOR_ERROR'],
    }),
    operationRoute({
      method: 'POST',
      path: `${MODEL_VERSION}:create`,
      body: 'json',
      operation: CoreCreateRecordDocument,
      // No header is an empty key, which the domain refuses (MISSING_IDEMPOTENCY_KEY) like a blank one.
      variables: (request) => ({
        input: {
          ...modelVersion(request),
          payload: objectMember(objectBody(request.body), 'payload', true)!,
          idempotencyKey: request.header('idempotency-key') ?? '',
        },
      }),
      respond: ({ createRecord: c }) => ({ status: 200, headers: replayHeaders(c.replayed), body: c.record }),
      openapi: {
        summary: 'create a record',
        parameters: [...modelParameters, { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, ...jsonContent(ref('PayloadRequest')) },
        responses: {
          200: {
            description: 'the record (also for a replay, with Idempotent-Replayed: true)',
            headers: { 'Idempotent-Replayed': { description: 'present on a replay', schema: { const: 'true' } } },
            ...jsonContent(ref('Record')),
          },
        },
      },
      errors: ['MODEL_NOT_FOUND', 'MISSING_IDEMPOTENCY_KEY', 'IDEMPOTENCY_CONFLICT', 'RECORD_CONFLICT', 'VALIDATION_FAILED', 'VALIDATOR_ERROR', 'STORE_ERROR', 'STORE_BUSY'],
    }),
    operationRoute({
      method: 'POST',
      path: `${MODEL_VERSION}:query`,
      body: 'json',
      operation: CoreQueryRecordsDocument,
      variables: (request) => ({ ...modelVersion(request), filter: objectBody(request.body).filter ?? {} }),
      respond: (data, request) => json({ records: found(data.modelVersion, request).records.nodes }),
      openapi: {
        summary: 'query records of this model version',
        parameters: modelParameters,
        requestBody: jsonContent({ type: 'object', properties: { filter: ref('Filter') } }),
        responses: ok('matching records', { type: 'object', properties: { records: { type: 'array', items: ref('Record') } } }),
      },
      errors: ['MODEL_NOT_FOUND', 'STORE_ERROR', 'STORE_BUSY'],
    }),
    {
      // A version segment without an operation, or with one the contract does not name (DECISIONS section 3).
      method: 'POST',
      path: '/models/{model}/versions/{segment}',
      openapi: null,
      local: (request) => {
        const op = request.params.segment!.includes(':') ? request.params.segment!.split(':').pop() : undefined;
        throw new DomainError('BAD_REQUEST', op ? `unknown operation ":${op}"` : 'operation missing: use :validate, :create or :query');
      },
    },
    operationRoute({
      method: 'GET',
      path: '/models',
      operation: CoreModelsDocument,
      respond: (data) => json({ models: data.modelVersions.map((m) => ({ id: m.model, version: m.version, ...(m.label ? { label: m.label } : {}) })) }),
      openapi: {
        summary: 'list the models',
        responses: ok('models sorted by id, then version', {
          type: 'object',
          properties: {
            models: { type: 'array', items: { type: 'object', required: ['id', 'version'], properties: { id: { type: 'string' }, version: { type: 'string' }, label: { type: 'string' } } } },
          },
        }),
      },
    }),
    artifactRoute('schema', 'JSON Schema', 'application/schema+json'),
    artifactRoute('shacl', 'SHACL', 'text/turtle'),
    artifactRoute('owl', 'OWL', 'text/turtle'),
    {
      method: 'GET',
      path: '/openapi.json',
      authorize: 'service.openapi',
      local: () => json(context.openapi()),
      openapi: { summary: 'this document', responses: ok('OpenAPI 3.1 document', { type: 'object' }) },
    },
    operationRoute({
      method: 'GET',
      path: '/admin/health',
      operation: CoreHealthDocument,
      respond: ({ health: { registry: h } }) => json({ status: h.status, uptime_seconds: h.uptimeSeconds }),
      openapi: {
        summary: 'liveness probe (no authentication)',
        authenticated: false,
        responses: ok('alive', { type: 'object', properties: { status: { const: 'ok' }, uptime_seconds: { type: 'integer' } } }),
      },
    }),
    operationRoute({
      method: 'GET',
      path: '/admin/version',
      operation: CoreVersionDocument,
      respond: ({ health: { version: v } }) => json({ service: v.service, service_version: v.serviceVersion, openapi_version: v.openapiVersion }),
      openapi: {
        summary: 'service and OpenAPI version',
        responses: ok('version info', { type: 'object', properties: { service: { type: 'string' }, service_version: { type: 'string' }, openapi_version: { type: 'string' } } }),
      },
    }),
    operationRoute({
      method: 'GET',
      path: '/admin/models/count',
      operation: CoreModelsCountDocument,
      respond: (data) => json({ models_count: data.modelVersionCount }),
      openapi: { summary: 'number of indexed models', responses: ok('model count', { type: 'object', properties: { models_count: { type: 'integer' } } }) },
    }),
    operationRoute({
      method: 'GET',
      path: '/admin/ready',
      operation: CoreReadinessDocument,
      respond: ({ health: { readiness: r } }) => (r.ready ? json({ status: 'ready', models_available: r.modelsAvailable, store: r.store }) : json({ status: 'not_ready', reasons: r.reasons }, 503)),
      openapi: {
        summary: 'readiness probe',
        responses: {
          ...ok('ready', { type: 'object', properties: { status: { const: 'ready' }, models_available: { type: 'integer' }, store: { const: 'ok' } } }),
          503: { description: 'not ready', ...jsonContent({ type: 'object', properties: { status: { const: 'not_ready' }, reasons: { type: 'array', items: { type: 'string' } } } }) },
        },
      },
    }),
    operationRoute({
      method: 'GET',
      path: '/admin/status',
      operation: CoreStatusDocument,
      respond: ({ health: { status: s } }) =>
        json({
          status: 'ok',
          uptime_seconds: s.uptimeSeconds,
          service: s.service,
          service_version: s.serviceVersion,
          registry: {
            models_loaded: s.registry.modelsLoaded,
            last_refresh_at: s.registry.lastRefreshAt,
            catalog_revision: s.registry.catalogRevision,
            errors: s.registry.errors.map(registryError),
          },
          store: { backend: s.storeBackend },
          auth: { mode: context.edge.authMode },
          metrics_enabled: context.edge.metricsEnabled,
          supergraph: { version: context.edge.supergraph.version, registry_version: context.edge.supergraph.registryVersion },
          validators: { shacl: { unsupported_constraints: s.shaclUnsupportedConstraints } },
        }),
      openapi: { summary: 'runtime status', responses: ok('status', { type: 'object' }) },
    }),
    {
      method: 'GET',
      path: '/admin/metrics',
      authorize: 'admin.metrics',
      local: async () => {
        const metrics = await context.metrics();
        if (!metrics) throw metricsDisabled();
        return { status: 200, headers: { 'content-type': metrics.contentType }, body: metrics.body };
      },
      openapi: {
        summary: 'Prometheus metrics when METRICS_ENABLED=true',
        responses: { 200: { description: 'metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
      errors: ['NOT_FOUND'],
    },
    operationRoute({
      method: 'POST',
      path: '/admin/registry/refresh',
      operation: CoreRefreshRegistryDocument,
      respond: ({ refreshRegistry: r }) => json({ refreshed_at: r.refreshedAt, models_found: r.modelsFound, errors: r.errors.map(registryError) }),
      openapi: {
        summary:
          'reload the catalog and artifacts; answered once every worker serves the result (REGISTRY_ERROR when the catalog ' +
          'cannot be loaded: the previous index stays). Refreshes asked for while one runs share the next run',
        responses: ok('refresh report', {
          type: 'object',
          properties: { refreshed_at: { type: 'string', format: 'date-time' }, models_found: { type: 'integer' }, errors: { type: 'array', items: ref('RegistryError') } },
        }),
      },
      errors: ['REGISTRY_ERROR'],
    }),
  ],
};

function artifactRoute(kind: 'schema' | 'shacl' | 'owl', label: string, mediaType: string): Route {
  return operationRoute({
    method: 'GET',
    path: `${MODEL_VERSION}/${kind}`,
    operation: CoreArtifactDocument,
    variables: (request) => ({ ...modelVersion(request), kind: artifactKindOf(kind) }),
    respond: (data, request) => {
      const { mediaType: served, etag, content } = found(data.modelVersion, request).artifact;
      const headers = { etag, 'content-type': served };
      if (etagMatches(request.header('if-none-match'), etag)) return { status: 304, headers };
      return { status: 200, headers, body: content };
    },
    openapi: {
      summary: `raw ${label} artifact, byte for byte as fetched`,
      parameters: [...modelParameters, { name: 'If-None-Match', in: 'header', schema: { type: 'string' } }],
      responses: {
        200: { description: `the ${label} artifact`, headers: { ETag: { schema: { type: 'string' } } }, content: { [mediaType]: { schema: { type: 'string' } } } },
        304: { description: 'not modified (If-None-Match)' },
      },
    },
    errors: ['MODEL_NOT_FOUND', 'ARTIFACT_NOT_FOUND', 'REGISTRY_ERROR'],
  });
}

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
