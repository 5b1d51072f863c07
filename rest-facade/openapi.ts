import { DomainError, type ErrorCode } from '../kernel/errors.js';
import type { Facade } from './facades.js';
import type { Route } from './route-table.js';

/** What a facade's OpenAPI document says besides its paths, which its routes give. */
export interface OpenApiHead {
  title: string;
  /** `info.version` (the core's `/admin/version` reports it as `openapi_version`). */
  version: string;
  /** Component schemas the routes refer to. */
  schemas: Record<string, unknown>;
  /** The schema of an error answer in the facade's envelope. */
  errorSchema: unknown;
  /** Every route asks for a bearer token unless it says it needs no authentication. */
  bearer: boolean;
}

/** The error codes of a facade that authenticates no caller (DECISIONS section 2): only its own failure is common to every route. */
export const WITHOUT_AUTHENTICATION = { commonErrors: ['INTERNAL_ERROR'], authErrors: [] } as const satisfies { commonErrors: readonly ErrorCode[]; authErrors: readonly ErrorCode[] };

/** Codes every route with a JSON body (or a raw one) may answer before its operation runs. */
const BODY_ERRORS: Record<'json' | 'raw', ErrorCode[]> = {
  json: ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  raw: ['PAYLOAD_TOO_LARGE'],
};

/**
 * A facade's OpenAPI 3.1 document, derived from its routes: each route's operation object, its
 * error responses from the codes it answers (its own, its body's, the facade's common ones, and the
 * authentication ones unless the route needs none), one response per status listing the codes.
 */
export function openApiDocument(facade: Facade, routes: readonly Route[], serviceVersion: string) {
  const { head } = facade.openapi;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.openapi === null) continue;
    const { authenticated, ...operation } = route.openapi;
    const authenticates = head.bearer && authenticated !== false;
    const codes = [...(route.errors ?? []), ...(route.body ? BODY_ERRORS[route.body] : []), ...facade.openapi.commonErrors, ...(authenticates ? facade.openapi.authErrors : [])];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      ...operation,
      ...(authenticates ? { security: [{ bearer: [] }] } : {}),
      responses: { ...errorResponses(facade, codes, head.errorSchema), ...operation.responses },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: head.title, version: head.version, description: `service version ${serviceVersion}` },
    components: {
      ...(head.bearer ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } } : {}),
      schemas: head.schemas,
    },
    paths,
  };
}

/** One response per status, describing the codes the facade answers with it (as its envelope spells them). */
function errorResponses(facade: Facade, codes: readonly ErrorCode[], schema: unknown): Record<string, unknown> {
  const byStatus = new Map<number, Set<string>>();
  for (const code of new Set(codes)) {
    const { status, body } = facade.errors(new DomainError(code, ''));
    const spelled = (body as { code?: string; detail?: { code?: string } } | undefined)?.code ?? (body as { detail?: { code?: string } } | undefined)?.detail?.code ?? code;
    (byStatus.get(status) ?? byStatus.set(status, new Set()).get(status)!).add(spelled);
  }
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, spelled]) => [String(status), { description: [...spelled].join(', '), content: { 'application/json': { schema } } }]),
  );
}
