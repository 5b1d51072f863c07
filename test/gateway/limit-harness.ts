import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { Kind, type OperationDefinitionNode, buildSchema, parse } from 'graphql';
import type { Operation } from '../../gateway/plugins/operation-limit.js';

/** A small schema with nesting, lists and an interface, for the limit plugins' tests. */
export const SCHEMA = buildSchema(`
  interface Node { id: ID! }
  type Part implements Node { id: ID! name: String parts: [Part!]! maker: Maker }
  type Maker implements Node { id: ID! name: String }
  union Thing = Part | Maker
  type Query { part(id: ID!): Part parts: [Part!]! node(id: ID!): Node things: [Thing!]! matrix: [[Part!]!]! }
`);

/** The measured form of a document's first operation. */
export function operationOf(text: string): Operation {
  const document = parse(text);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  return { operation, fragments, schema: SCHEMA };
}

/** Runs a query through Apollo Server with one plugin; root fields answer null or []. */
export async function runWith(plugin: ApolloServerPlugin, query: string) {
  const server = new ApolloServer({ schema: SCHEMA, rootValue: { parts: [], things: [], matrix: [] }, plugins: [plugin] });
  await server.start();
  try {
    const response = await server.executeOperation({ query });
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    return { status: response.http.status, errors: response.body.singleResult.errors };
  } finally {
    await server.stop();
  }
}
