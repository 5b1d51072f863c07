import type { RequestHandler } from 'express';
import { DomainError, ERROR_STATUSES } from '../kernel/errors.js';
import { type DocumentSizeLimits, checkParsed, checkTokens } from '../kernel/graphql/document-size.js';
import { documentLru } from '../kernel/graphql/document-lru.js';
import { parse } from 'graphql';

/** Texts up to this length keep their verdict; longer ones (rare, and costly to keep) are measured each time. */
const REMEMBERED_TEXT_LENGTH = 16 * 1024;

/**
 * QUERY_TOO_LARGE, LITERAL_TOO_DEEP or LITERAL_TOO_LARGE (400) for a document over the size limits
 * (GRAPHQL_MAX_TOKENS, GRAPHQL_MAX_FIELDS, GRAPHQL_MAX_LITERAL_DEPTH, GRAPHQL_MAX_LITERAL_VALUES), before Apollo
 * Server sees the request (kernel/graphql/document-size.ts says why it must come before
 * validation). Here rather than in an Apollo Server plugin: a plugin's parsing hooks cannot refuse
 * a request (what they throw becomes a 500). A text seen before costs a lookup; automatic persisted
 * queries are measured when their text is registered, which this refusal prevents.
 */
export function documentSizeGuard(limits: DocumentSizeLimits): RequestHandler {
  // A verdict is kept as `false` for a document within the limits: an LRU keeps no null.
  const verdicts = documentLru<DomainError | false>((_, query) => query.length);
  return (req, res, next) => {
    const query = queryOf(req.method === 'GET' ? req.query : req.body);
    if (query === undefined) return next();
    let refused = verdicts.get(query);
    if (refused === undefined) {
      refused = measure(query, limits);
      if (query.length <= REMEMBERED_TEXT_LENGTH) verdicts.set(query, refused);
    }
    if (!refused) return next();
    res.status(ERROR_STATUSES[refused.code]).json({ errors: [{ message: refused.message, extensions: { code: refused.code, details: refused.details } }] });
  };
}

function queryOf(request: unknown): string | undefined {
  const query = (request as { query?: unknown } | null)?.query;
  return typeof query === 'string' ? query : undefined;
}

/** The refusal, or false for a document within the limits (a syntax error is left to Apollo Server to report). */
function measure(query: string, limits: DocumentSizeLimits): DomainError | false {
  try {
    checkTokens(query, limits.maxTokens);
    checkParsed(parse(query, { noLocation: true }), limits);
    return false;
  } catch (error) {
    return error instanceof DomainError ? error : false;
  }
}
