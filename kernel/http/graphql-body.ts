import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { DomainError, ERROR_STATUSES } from '../errors.js';
import type { Refusal } from './http-server.js';
import { type BodyLimits, checkJsonBytes } from './json-bytes.js';

/** The JSON body of a GraphQL request (`/graphql`, a subgraph port), checked like the REST facades' (json-bytes.ts). */
export function graphqlJsonBody(limits: BodyLimits): RequestHandler {
  return express.json({ limit: limits.maxBytes, verify: (_req, _res, bytes) => checkJsonBytes(bytes, limits.maxDepth) });
}

/**
 * A refusal of a GraphQL request, shaped as GraphQL answers are: `{errors: [{message, extensions:
 * {code, details}}]}`, `details` null when there are none, as in every error of ours (graphql-endpoint.ts `maskError`).
 */
export const graphqlRefusal: Refusal = (error) => ({
  status: ERROR_STATUSES[error.code],
  headers: error.code === 'UNAUTHORIZED' ? { 'www-authenticate': 'Bearer' } : ({} as Record<string, string>),
  body: { errors: [{ message: error.message, extensions: { code: error.code, details: error.details } }] },
});

/**
 * Unreadable bodies get a GraphQL-shaped JSON error, never express's HTML error page (which, outside
 * NODE_ENV=production, shows the parser's stack trace and file paths).
 */
export const rejectUnreadableBody: ErrorRequestHandler = (error, _req, res, _next) => {
  const tooLarge = (error as { type?: string }).type === 'entity.too.large';
  const refused = error instanceof DomainError ? error : new DomainError(tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', tooLarge ? 'request body too large' : 'request body is not valid JSON');
  const { status, headers, body } = graphqlRefusal(refused);
  res.status(status).set(headers).json(body);
};
