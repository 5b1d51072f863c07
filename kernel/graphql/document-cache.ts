import { type DocumentNode, type GraphQLSchema, parse, specifiedRules, validate } from 'graphql';
import { documentLru } from './document-lru.js';
import { noIntrospection, withoutSuggestions } from './no-introspection.js';

export type CachedDocument = { document: DocumentNode } | { errors: readonly Error[] };

export interface DocumentCacheOptions {
  /** False: `__schema`, `__type` and `_service` are refused, and messages suggest no names. */
  introspection?: boolean;
}

/** Fields that describe the schema itself: introspection, and federation's SDL of a subgraph. */
const SCHEMA_FIELDS = ['__schema', '__type', '_service'];

/**
 * Operation texts parsed and validated once per schema. Subgraphs receive the same few operation
 * texts from the query planner over and over; re-parsing them is most of a trivial request's cost.
 */
export class DocumentCache {
  /** Bounded (document-lru.ts), so arbitrary texts sent to a subgraph endpoint cannot grow memory without limit. */
  private readonly documents = documentLru<CachedDocument>((_, query) => query.length);
  private readonly rules;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly options: DocumentCacheOptions = {},
  ) {
    this.rules = options.introspection === false ? [...specifiedRules, noIntrospection(SCHEMA_FIELDS)] : specifiedRules;
  }

  get(query: string): CachedDocument {
    let cached = this.documents.get(query);
    if (!cached) {
      cached = this.compile(query);
      this.documents.set(query, cached);
    }
    return cached;
  }

  private compile(query: string): CachedDocument {
    try {
      const document = parse(query);
      const errors = validate(this.schema, document, this.rules);
      return errors.length > 0 ? { errors: errors.map((error) => this.shown(error)) } : { document };
    } catch (error) {
      return { errors: [error as Error] };
    }
  }

  /** With introspection off, "Did you mean …?" would reveal names the schema otherwise hides. */
  private shown(error: Error): Error {
    return this.options.introspection === false ? new Error(withoutSuggestions(error.message)) : error;
  }
}
