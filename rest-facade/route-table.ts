import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, type GraphQLSchema, validate } from 'graphql';
import { type PreparedOperation, prepareOperation } from '../gateway/executor/executor.js';
import type { DomainError, ErrorCode } from '../kernel/errors.js';
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

/** How one facade turns an error code into its documented status and envelope. */
export type ErrorPolicy = (error: DomainError) => FacadeResponse;

/**
 * A route's entry in its facade's OpenAPI 3.1 document: an operation object whose `responses` hold
 * the answers that are not errors; the error responses come from the route's codes (`errors`).
 */
export interface OpenApiOperation {
  summary: string;
  description?: string;
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  /** False: the route needs no authentication even where the facade's others do. */
  authenticated?: false;
}

interface RouteBase {
  method: Method;
  /** `/models/{model}/versions/{version}:validate`: `{name}` matches one path segment or its prefix. */
  path: string;
  /** `json`: the body is read and parsed (415/413/400 apply); `raw`: its bytes are handed over (413 applies). */
  body?: 'json' | 'raw';
  /** Null: left out of the OpenAPI document (a catch-all that only answers errors, a page's assets). */
  openapi: OpenApiOperation | null;
  /** The codes this route answers besides every route's of its facade, documented by status. */
  errors?: readonly ErrorCode[];
}

/**
 * One documented path answered by one GraphQL operation, from the facade's `operations.graphql`
 * (typed by scripts/codegen.mjs): `variables` from the request, `respond` from the operation's data,
 * typed by the operation's own selection. No business logic.
 */
export interface OperationRoute<TData, TVariables> extends RouteBase {
  operation: TypedDocumentNode<TData, TVariables>;
  variables?(request: FacadeRequest): TVariables;
  respond(data: TData, request: FacadeRequest): FacadeResponse;
}

/** One of the few HTTP-only documents (OpenAPI, metrics, docs), answered by the facade itself. */
export interface LocalRoute extends RouteBase {
  local(request: FacadeRequest): FacadeResponse | Promise<FacadeResponse>;
  /** The operation the caller must be authorized for (operations check in the subgraph). */
  authorize?: Operation;
}

export type Route = OperationRoute<unknown, Record<string, unknown>> | LocalRoute;

/** A route answered by its GraphQL operation, its `respond` typed by the operation's data. */
export function operationRoute<TData, TVariables extends Record<string, unknown>>(route: OperationRoute<TData, TVariables>): Route {
  return route as unknown as Route;
}

export type CompiledRoute = Route & {
  pattern: RegExp;
  names: string[];
  prepared?: PreparedOperation;
};

/**
 * Compiles a route table once: path patterns to regular expressions, and each operation validated
 * against the gateway's API schema at start-up, so a route whose field disappeared fails there and
 * not on a client's request.
 */
export function compileRoutes(routes: Route[], schema: GraphQLSchema): CompiledRoute[] {
  return routes.map((route) => ({
    ...route,
    ...compilePath(route.path),
    prepared: 'operation' in route ? prepared(route, route.operation, schema) : undefined,
  }));
}

function prepared(route: Route, document: DocumentNode, schema: GraphQLSchema): PreparedOperation {
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
