import { type GraphQLSchema, execute } from 'graphql';
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { DocumentCache } from './document-cache.js';

/**
 * Calls a subgraph living in this process without HTTP. Unlike the gateway's
 * LocalGraphQLDataSource it does not parse and validate the subgraph operation on every request.
 * The gateway's context (the caller's RequestContext) is handed to the resolvers as it is.
 */
export class InProcessDataSource implements GraphQLDataSource<Record<string, unknown>> {
  private readonly documents: DocumentCache;

  constructor(private readonly schema: GraphQLSchema) {
    this.documents = new DocumentCache(schema);
  }

  async process({ request, context }: GraphQLDataSourceProcessOptions<Record<string, unknown>>) {
    const cached = this.documents.get(request.query ?? '');
    if ('errors' in cached) return { errors: cached.errors.map((e) => ({ message: e.message })) };
    const result = await execute({
      schema: this.schema,
      document: cached.document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    });
    return result as never;
  }
}
