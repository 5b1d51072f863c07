import { type DocumentNode, type GraphQLSchema, parse, validate } from 'graphql';

export type CachedDocument = { document: DocumentNode } | { errors: readonly Error[] };

/**
 * Operation texts parsed and validated once per schema. Subgraphs receive the same few operation
 * texts from the query planner over and over; re-parsing them is most of a trivial request's cost.
 */
export class DocumentCache {
  private readonly documents = new Map<string, CachedDocument>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly maxEntries = 1000,
  ) {}

  get(query: string): CachedDocument {
    let cached = this.documents.get(query);
    if (!cached) {
      cached = this.compile(query);
      // Bounded, so arbitrary texts sent to a subgraph endpoint cannot grow memory without limit.
      if (this.documents.size >= this.maxEntries) this.documents.clear();
      this.documents.set(query, cached);
    }
    return cached;
  }

  private compile(query: string): CachedDocument {
    try {
      const document = parse(query);
      const errors = validate(this.schema, document);
      return errors.length > 0 ? { errors } : { document };
    } catch (error) {
      return { errors: [error as Error] };
    }
  }
}
