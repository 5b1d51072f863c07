import { parse } from 'graphql';
import { DomainError } from '../kernel/errors.js';
import { documentLru } from '../kernel/graphql/document-lru.js';
import { type DocumentSizeLimits, checkParsed, checkTokens } from './limits/document-size.js';
import type { RequestPlugin } from './pipeline.js';

/** Texts up to this length keep their verdict; longer ones (rare, and costly to keep) are measured each time. */
const REMEMBERED_TEXT_LENGTH = 16 * 1024;

/**
 * QUERY_TOO_LARGE, LITERAL_TOO_DEEP or LITERAL_TOO_LARGE (400) for a client's document over the size
 * limits (GRAPHQL_MAX_TOKENS, GRAPHQL_MAX_FIELDS, GRAPHQL_MAX_LITERAL_DEPTH,
 * GRAPHQL_MAX_LITERAL_VALUES), before it is validated (limits/document-size.ts says why it must
 * come first): `/graphql` hands its documents over before Apollo Server sees them (whose plugins'
 * parsing hooks cannot refuse a request: what they throw becomes a 500), a subgraph port those of a
 * direct caller (the gateway's are its planner's, from operations held to the limits already). A
 * text seen before costs a lookup; automatic persisted queries are measured when their text is
 * registered, which this refusal prevents.
 */
export function documentSizeLimits(limits: DocumentSizeLimits): RequestPlugin {
  // A verdict is kept as `false` for a document within the limits: an LRU keeps no null.
  const verdicts = documentLru<DomainError | false>((_, query) => query.length);
  return {
    onDocument(_exchange, query) {
      let refused = verdicts.get(query);
      if (refused === undefined) {
        refused = measure(query, limits);
        if (query.length <= REMEMBERED_TEXT_LENGTH) verdicts.set(query, refused);
      }
      if (refused) throw refused;
    },
  };
}

/** The refusal, or false for a document within the limits (a syntax error is left to the door's parser to report). */
function measure(query: string, limits: DocumentSizeLimits): DomainError | false {
  try {
    checkTokens(query, limits.maxTokens);
    checkParsed(parse(query, { noLocation: true }), limits);
    return false;
  } catch (error) {
    return error instanceof DomainError ? error : false;
  }
}
