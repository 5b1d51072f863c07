import { Kind, type OperationDefinitionNode, buildSchema, parse } from 'graphql';
import type { MeasuredOperation } from '../../../pipeline/limits/measure.js';
import { type OperationLimitValues, operationLimits } from '../../../pipeline/operation-limits.js';
import type { Exchange } from '../../../pipeline/pipeline.js';
import type { DomainError } from '../../../kernel/errors.js';

/** A small schema with nesting, lists, an interface, a connection and demand control directives, for the limit plugins' tests. */
export const SCHEMA = buildSchema(`
  directive @cost(weight: Int!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR
  directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
  scalar JSON
  scalar Blob @cost(weight: 50)
  interface Node { id: ID! }
  type Part implements Node {
    id: ID! name: String parts: [Part!]! maker: Maker data: JSON @cost(weight: 10) blob: Blob
    related(first: Int, after: String): PartConnection! @listSize(slicingArguments: ["first"], sizedFields: ["edges", "nodes"], requireOneSlicingArgument: false)
  }
  type Maker implements Node { id: ID! name: String }
  union Thing = Part | Maker
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type PartEdge { cursor: String! node: Part! }
  type PartConnection { edges: [PartEdge!]! nodes: [Part!]! pageInfo: PageInfo! totalCount: Int! }
  type Query {
    part(id: ID!): Part parts: [Part!]! node(id: ID!): Node things: [Thing!]! matrix: [[Part!]!]!
    page(first: Int, last: Int): [Part!]! @listSize(slicingArguments: ["first", "last"], requireOneSlicingArgument: false)
    search(filter: JSON, limit: Int): [Part!]!
    few: [Part!]! @listSize(assumedSize: 3)
    partPage(first: Int, after: String, last: Int, before: String): PartConnection!
      @listSize(assumedSize: 100, slicingArguments: ["first", "last"], sizedFields: ["edges", "nodes"], requireOneSlicingArgument: false)
    _entities(representations: [JSON!]!): [Thing]!
  }
`);

/** The measured form of a document's first operation, with the request's variables. */
export function operationOf(text: string, variables: Record<string, unknown> = {}): MeasuredOperation {
  const document = parse(text);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  return { operation, fragments, schema: SCHEMA, variables };
}

/** What the operation limits plugin (pipeline/operation-limits.ts) refuses the operation with, if anything. */
export function refusalOf(limits: Partial<OperationLimitValues>, text: string): DomainError | undefined {
  const plugin = operationLimits({ maxDepth: Infinity, maxAliases: Infinity, maxCost: Infinity, maxSelections: Infinity, ...limits });
  try {
    plugin.onOperation!({ ...operationOf(text), exchange: { protocol: 'graphql' } as Exchange });
    return undefined;
  } catch (error) {
    return error as DomainError;
  }
}
