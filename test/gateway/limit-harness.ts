import { Kind, type OperationDefinitionNode, buildSchema, parse } from 'graphql';
import type { MeasuredOperation } from '../../gateway/pipeline/limits/measure.js';
import { type OperationLimitValues, operationLimits } from '../../gateway/pipeline/operation-limits.js';
import type { Exchange } from '../../gateway/pipeline/pipeline.js';
import type { DomainError } from '../../kernel/errors.js';

/** A small schema with nesting, lists, an interface and a connection, for the limit plugins' tests. */
export const SCHEMA = buildSchema(`
  scalar JSON
  interface Node { id: ID! }
  type Part implements Node { id: ID! name: String parts: [Part!]! maker: Maker data: JSON related(first: Int, after: String): PartConnection! }
  type Maker implements Node { id: ID! name: String }
  union Thing = Part | Maker
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type PartEdge { cursor: String! node: Part! }
  type PartConnection { edges: [PartEdge!]! nodes: [Part!]! pageInfo: PageInfo! totalCount: Int! }
  type Query {
    part(id: ID!): Part parts: [Part!]! node(id: ID!): Node things: [Thing!]! matrix: [[Part!]!]!
    page(first: Int, last: Int): [Part!]! search(filter: JSON): [Part!]!
    partPage(first: Int, after: String, last: Int, before: String): PartConnection!
  }
`);

/** The measured form of a document's first operation, with the request's variables. */
export function operationOf(text: string, variables: Record<string, unknown> = {}): MeasuredOperation {
  const document = parse(text);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  return { operation, fragments, schema: SCHEMA, variables };
}

/** What the operation limits plugin (gateway/pipeline/operation-limits.ts) refuses the operation with, if anything. */
export function refusalOf(limits: Partial<OperationLimitValues>, text: string): DomainError | undefined {
  const plugin = operationLimits({ maxDepth: Infinity, maxAliases: Infinity, maxCost: Infinity, ...limits });
  try {
    plugin.onOperation!({ ...operationOf(text), exchange: { protocol: 'graphql' } as Exchange });
    return undefined;
  } catch (error) {
    return error as DomainError;
  }
}
