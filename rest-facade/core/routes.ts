import { DomainError } from '../../kernel/errors.js';
import { objectBody, objectMember, replayHeaders } from '../http/envelopes.js';
import type { FacadeRequest, FacadeResponse, Route } from '../route-table.js';

const MODEL_VERSION = '/models/{model}/versions/{version}';

/** Local (HTTP-only) documents the core facade serves besides its operations. */
export interface CoreDocuments {
  openapi(): unknown;
  /** Prometheus exposition, or null when METRICS_ENABLED is not true. */
  metrics(): Promise<{ contentType: string; body: string } | null>;
}

const json = (body: unknown, status = 200): FacadeResponse => ({ status, body });
const modelVersion = (request: FacadeRequest) => ({ model: request.params.model, version: request.params.version });

/** The route table of the core service (doc 01): each path is one GraphQL operation. */
export function coreRoutes(documents: CoreDocuments): Route[] {
  return [
    {
      method: 'POST',
      path: `${MODEL_VERSION}:validate`,
      body: 'json',
      operation: `query CoreValidate($model: String!, $version: String!, $payload: JSONObject!) {
        validate(model: $model, version: $version, payload: $payload) {
          passed
          results { kind passed violations { path message severity constraint value } }
        }
      }`,
      variables: (request) => ({ ...modelVersion(request), payload: objectMember(objectBody(request.body), 'payload', true) }),
      respond: (data) => json(restReport(data.validate)),
    },
    {
      // The selection is exactly the REST record {id, model, version, payload}, so it is answered as is.
      method: 'POST',
      path: `${MODEL_VERSION}:create`,
      body: 'json',
      operation: `mutation CoreCreateRecord($model: String!, $version: String!, $payload: JSONObject!, $idempotencyKey: String!) {
        createRecord(model: $model, version: $version, payload: $payload, idempotencyKey: $idempotencyKey) {
          replayed
          record { id model version payload }
        }
      }`,
      // No header is an empty key, which the domain refuses (MISSING_IDEMPOTENCY_KEY) like a blank one.
      variables: (request) => ({
        ...modelVersion(request),
        payload: objectMember(objectBody(request.body), 'payload', true),
        idempotencyKey: request.header('idempotency-key') ?? '',
      }),
      respond: ({ createRecord: c }) => ({ status: 200, headers: replayHeaders(c.replayed), body: c.record }),
    },
    {
      method: 'POST',
      path: `${MODEL_VERSION}:query`,
      body: 'json',
      operation: `query CoreQueryRecords($model: String!, $version: String!, $filter: JSON) {
        records(model: $model, version: $version, filter: $filter) { id model version payload }
      }`,
      variables: (request) => ({ ...modelVersion(request), filter: objectBody(request.body).filter ?? null }),
      respond: (data) => json({ records: data.records }),
    },
    {
      // A version segment without an operation, or with one the contract does not name (DECISIONS section 3).
      method: 'POST',
      path: '/models/{model}/versions/{segment}',
      local: (request) => {
        const op = request.params.segment!.includes(':') ? request.params.segment!.split(':').pop() : undefined;
        throw new DomainError('BAD_REQUEST', op ? `unknown operation ":${op}"` : 'operation missing: use :validate, :create or :query');
      },
    },
    {
      method: 'GET',
      path: '/models',
      operation: 'query CoreModels { models { model version label } }',
      respond: (data: { models: Array<{ model: string; version: string; label: string | null }> }) =>
        json({ models: data.models.map((m) => ({ id: m.model, version: m.version, ...(m.label ? { label: m.label } : {}) })) }),
    },
    artifactRoute('schema'),
    artifactRoute('shacl'),
    artifactRoute('owl'),
    { method: 'GET', path: '/openapi.json', authorize: 'service.openapi', local: () => json(documents.openapi()) },
    {
      method: 'GET',
      path: '/admin/health',
      operation: 'query CoreHealth { coreHealth { status uptimeSeconds } }',
      respond: (data) => json({ status: data.coreHealth.status, uptime_seconds: data.coreHealth.uptimeSeconds }),
    },
    {
      method: 'GET',
      path: '/admin/version',
      operation: 'query CoreVersion { coreVersion { service serviceVersion openapiVersion } }',
      respond: ({ coreVersion: v }) => json({ service: v.service, service_version: v.serviceVersion, openapi_version: v.openapiVersion }),
    },
    {
      method: 'GET',
      path: '/admin/models/count',
      operation: 'query CoreModelsCount { modelsCount }',
      respond: (data) => json({ models_count: data.modelsCount }),
    },
    {
      method: 'GET',
      path: '/admin/ready',
      operation: 'query CoreReadiness { coreReadiness { ready modelsAvailable store reasons } }',
      respond: ({ coreReadiness: r }) =>
        r.ready
          ? json({ status: 'ready', models_available: r.modelsAvailable, store: r.store })
          : json({ status: 'not_ready', reasons: r.reasons }, 503),
    },
    {
      method: 'GET',
      path: '/admin/status',
      operation: `query CoreStatus { coreStatus {
        uptimeSeconds service serviceVersion storeBackend authMode metricsEnabled shaclUnsupportedConstraints
        registry { modelsLoaded lastRefreshAt errors { model version artifact message } }
      } }`,
      respond: ({ coreStatus: s }) =>
        json({
          status: 'ok',
          uptime_seconds: s.uptimeSeconds,
          service: s.service,
          service_version: s.serviceVersion,
          registry: { models_loaded: s.registry.modelsLoaded, last_refresh_at: s.registry.lastRefreshAt, errors: s.registry.errors },
          store: { backend: s.storeBackend },
          auth: { mode: s.authMode },
          metrics_enabled: s.metricsEnabled,
          validators: { shacl: { unsupported_constraints: s.shaclUnsupportedConstraints } },
        }),
    },
    {
      method: 'GET',
      path: '/admin/metrics',
      authorize: 'admin.metrics',
      local: async () => {
        const metrics = await documents.metrics();
        if (!metrics) throw new DomainError('NOT_FOUND', 'metrics are disabled (METRICS_ENABLED is not true)');
        return { status: 200, headers: { 'content-type': metrics.contentType }, body: metrics.body };
      },
    },
    {
      method: 'POST',
      path: '/admin/registry/refresh',
      operation: `mutation CoreRefreshRegistry { refreshRegistry { refreshedAt modelsFound errors { model version artifact message } } }`,
      respond: ({ refreshRegistry: r }) => json({ refreshed_at: r.refreshedAt, models_found: r.modelsFound, errors: r.errors }),
    },
  ];
}

function artifactRoute(kind: 'schema' | 'shacl' | 'owl'): Route {
  return {
    method: 'GET',
    path: `${MODEL_VERSION}/${kind}`,
    operation: `query CoreArtifact($model: String!, $version: String!, $kind: ArtifactKind!) {
      modelVersion(model: $model, version: $version) { artifact(kind: $kind) { mediaType etag content } }
    }`,
    variables: (request) => ({ ...modelVersion(request), kind }),
    respond: (data, request) => {
      const { mediaType, etag, content } = data.modelVersion.artifact;
      const headers = { etag, 'content-type': mediaType };
      if (etagMatches(request.header('if-none-match'), etag)) return { status: 304, headers };
      return { status: 200, headers, body: content };
    },
  };
}

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

interface GqlReport {
  passed: boolean;
  results: Array<{ kind: string; passed: boolean; violations: Array<Record<string, unknown>> }>;
}

/** Optional violation extras (`constraint`, `value`) come back from GraphQL as null; the REST report omits them. */
function restReport(report: GqlReport): GqlReport {
  const violation = ({ constraint, value, ...rest }: Record<string, unknown>) => ({
    ...rest,
    ...(constraint === null ? {} : { constraint }),
    ...(value === null ? {} : { value }),
  });
  return { passed: report.passed, results: report.results.map((r) => ({ ...r, violations: r.violations.map(violation) })) };
}
