import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { DomainError, ERROR_STATUSES, retryAfterHeader } from '../errors.js';
import type { Refusal } from './http-server.js';
import { type BodyLimits, checkJsonBytes } from './json-bytes.js';

/**
 * Reads the JSON body of a GraphQL request (`/graphql`, a subgraph port) into `req.body`, checked
 * like the REST facades' (json-bytes.ts). An unreadable body rejects with PAYLOAD_TOO_LARGE or
 * BAD_REQUEST, answered by the door as GraphQL answers errors, never with express's HTML error page
 * (which, outside NODE_ENV=production, shows the parser's stack trace and file paths).
 */
export function graphqlJsonBody(limits: BodyLimits): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const parse = express.json({ limit: limits.maxBytes, verify: (_req, _res, bytes) => checkJsonBytes(bytes, limits.maxDepth) });
  return (req, res) => new Promise((resolve, reject) => parse(req, res, (error?: unknown) => (error === undefined ? resolve() : reject(unreadable(error)))));
}

function unreadable(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const tooLarge = (error as { type?: string }).type === 'entity.too.large';
  return new DomainError(tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', tooLarge ? 'request body too large' : 'request body is not valid JSON');
}

/**
 * A refusal of a GraphQL request, shaped as GraphQL answers are: `{errors: [{message, extensions:
 * {code, details}}]}`, `details` null when there are none, as in every error of ours (graphql-endpoint.ts `maskError`).
 * An error that says when to come back says it in `Retry-After` too.
 */
export const graphqlRefusal: Refusal = (error) => ({
  status: ERROR_STATUSES[error.code],
  headers: { ...(error.code === 'UNAUTHORIZED' ? { 'www-authenticate': 'Bearer' } : {}), ...retryAfterHeader(error) },
  body: { errors: [{ message: error.message, extensions: { code: error.code, details: error.details } }] },
});
