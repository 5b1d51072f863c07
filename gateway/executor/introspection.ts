import { type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, type GraphQLSchema, Kind, type SelectionSetNode, execute, getOperationAST } from 'graphql';
import type { OperationExecutor, OperationRequest } from './executor.js';
import type { SubgraphClient } from './subgraph-client.js';

/** The root fields the API schema answers by itself, with no subgraph: introspection's and `__typename`. */
const SCHEMA_FIELDS = new Set(['__schema', '__type', '__typename']);

/**
 * Operations that only describe the schema (every root field `__schema`, `__type` or `__typename`,
 * through fragments too: GraphiQL's and a client's introspection) answered by graphql-js over the
 * API schema, as @apollo/gateway answers those fields (its `executeIntrospection`): nothing to plan
 * or fetch, and no reason to load @apollo/gateway for them. Every other operation is `planned`'s.
 * GRAPHQL_INTROSPECTION's refusal happens before, at validation.
 */
export class IntrospectionAnswers implements OperationExecutor {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly planned: OperationExecutor,
  ) {}

  async execute(request: OperationRequest, subgraphs: Readonly<Record<string, SubgraphClient>>): Promise<ExecutionResult | null> {
    const operation = getOperationAST(request.document, request.operationName);
    if (!operation || !describesSchemaOnly(operation.selectionSet, request.document)) return this.planned.execute(request, subgraphs);
    return execute({ schema: this.schema, document: request.document, operationName: request.operationName, variableValues: request.variables });
  }
}

/** Whether every field of a root selection set, its fragments' included, is one of SCHEMA_FIELDS. */
function describesSchemaOnly(selectionSet: SelectionSetNode, document: DocumentNode): boolean {
  return selectionSet.selections.every((selection) => {
    if (selection.kind === Kind.FIELD) return SCHEMA_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return describesSchemaOnly(selection.selectionSet, document);
    const fragment = document.definitions.find((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
    return !!fragment && describesSchemaOnly(fragment.selectionSet, document);
  });
}
