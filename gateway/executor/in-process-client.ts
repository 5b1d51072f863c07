import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import { DocumentCache } from '../../kernel/graphql/document-cache.js';
import { executeSubgraph } from '../../kernel/graphql/execute-subgraph.js';
import type { SubgraphRequest, SubgraphResponse } from '../../pipeline/pipeline.js';
import type { SubgraphClient } from './subgraph-client.js';

/**
 * A subgraph living in this process, reached without HTTP. Unlike the gateway's
 * LocalGraphQLDataSource it does not parse and validate the subgraph operation on every request.
 * The caller's RequestContext is handed to the resolvers as it is.
 */
export class InProcessClient implements SubgraphClient {
  private readonly documents: DocumentCache;

  constructor(private readonly schema: GraphQLSchema) {
    this.documents = new DocumentCache(schema);
  }

  async fetch(request: SubgraphRequest, context: RequestContext): Promise<SubgraphResponse> {
    const cached = this.documents.get(request.query);
    // The planner's documents are not limited: only a validation error can come back, and only
    // from a value the client wrote that fits a scalar by name alone (a JSON scalar, DateTime).
    if ('errors' in cached) return { errors: cached.errors.map((e) => ({ message: e.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) };
    return executeSubgraph({
      schema: this.schema,
      document: cached.document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    }) as Promise<SubgraphResponse>;
  }
}
