import { type DocumentNode, parse, validate, type GraphQLSchema } from 'graphql';
import { type PreparedOperation, prepareOperation } from '../gateway/gateway.js';
import type { DomainError } from '../kernel/errors.js';
import type { Operation } from '../kernel/identity/authorization.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route sees of a request: matched path parameters, headers, and the parsed JSON body. */
export interface FacadeRequest {
  params: Record<string, string>;
  header(name: string): string | undefined;
  body: unknown;
}

export interface FacadeResponse {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or Buffer is sent as is (with a content-type header). */
  body?: unknown;
}

/**
 * One documented path. A route either runs one GraphQL operation through the gateway (`operation`,
 * `variables`, `respond`) or, for the few HTTP-only documents (OpenAPI, metrics, docs), answers
 * itself (`local`). Neither holds business logic.
 */
export interface Route {
  method: Method;
  /** `/models/{model}/versions/{version}:validate`: `{name}` matches one path segment or its prefix. */
  path: string;
  /** `json`: the body is read and parsed (415/413/400 apply); `raw`: its bytes are handed over (413 applies). */
  body?: 'json' | 'raw';
  operation?: string;
  variables?(request: FacadeRequest): Record<string, unknown>;
  respond?(data: any, request: FacadeRequest): FacadeResponse;
  local?(request: FacadeRequest): FacadeResponse | Promise<FacadeResponse>;
  /** Local routes only: the operation the caller must be authorized for (operations check in the subgraph). */
  authorize?: Operation;
}

/** How one facade turns an error code into its documented status and envelope. */
export type ErrorPolicy = (error: DomainError) => FacadeResponse;

export interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
  prepared?: PreparedOperation;
}

/**
 * Compiles a route table once: path patterns to regular expressions, and each operation parsed and
 * validated against the gateway's API schema at start-up, so a route whose field disappeared fails
 * there and not on a client's request.
 */
export function compileRoutes(routes: Route[], schema: GraphQLSchema): CompiledRoute[] {
  return routes.map((route) => ({ ...route, ...compilePath(route.path), prepared: route.operation ? prepared(route, schema) : undefined }));
}

function prepared(route: Route, schema: GraphQLSchema): PreparedOperation {
  const document: DocumentNode = parse(route.operation!);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`route ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
  return prepareOperation(document);
}

function compilePath(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{[A-Za-z_]+\})/)
    .map((part) => {
      const name = /^\{([A-Za-z_]+)\}$/.exec(part)?.[1];
      if (!name) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+?)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}

export type RouteMatch = { route: CompiledRoute; params: Record<string, string> } | { allowed: Method[] } | null;

/** The route for a method and path; otherwise the methods the path allows (405) or nothing (404). */
export function matchRoute(routes: CompiledRoute[], method: string, path: string): RouteMatch {
  const allowed: Method[] = [];
  for (const route of routes) {
    const found = route.pattern.exec(path);
    if (!found) continue;
    if (route.method !== method) {
      if (!allowed.includes(route.method)) allowed.push(route.method);
      continue;
    }
    const params = Object.fromEntries(route.names.map((name, i) => [name, decodeSegment(found[i + 1]!)]));
    return { route, params };
  }
  return allowed.length > 0 ? { allowed } : null;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
