import type { Schema } from '@apollo/federation-internals';
import { operationFromDocument } from '@apollo/federation-internals';
import type { QueryPlan } from '@apollo/query-planner';
import type { PlanNode as HivePlanNode } from '@graphql-hive/router-query-planner';
import { type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, GraphQLError, type GraphQLSchema, Kind, type OperationDefinitionNode, parse, print } from 'graphql';
import { type ResultShape, compileResultShape } from './result-shaping.js';

/**
 * The shaping of an operation's answer (result-shaping.ts), from the document planned (its aliases
 * renamed where they could meet a planner's fields: client-aliases.ts) to the client's names; null
 * when the gateway's executor must answer it.
 */
export function operationShape(
  apiSchema: GraphQLSchema,
  federationApiSchema: Schema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  clientName?: (name: string) => string,
): ResultShape | null {
  const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  let federationOperation;
  try {
    // As `executeQueryPlan` reads the operation: its definition and the document's fragments, unvalidated.
    federationOperation = operationFromDocument(federationApiSchema, { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] }, { validate: false });
  } catch {
    return null;
  }
  return compileResultShape(apiSchema, federationOperation, clientName);
}

/**
 * The gateway's answer from the fetches' errors and the shaped data: shaping errors are reported
 * under `extensions.valueCompletion` when no fetch failed, and a shaping failure is the answer's
 * one error.
 */
export function answer(fetchErrors: GraphQLError[], shape: ResultShape, gathered: Record<string, unknown>, variables: Record<string, unknown>): ExecutionResult {
  let shaped;
  try {
    shaped = shape.shape(gathered, variables);
  } catch (error) {
    return { errors: [error instanceof GraphQLError ? error : new GraphQLError((error as Error).message, { originalError: error as Error })] };
  }
  if (fetchErrors.length === 0 && shaped.errors.length > 0) return { extensions: { valueCompletion: shaped.errors }, data: shaped.data };
  return fetchErrors.length === 0 ? { data: shaped.data } : { errors: fetchErrors, data: shaped.data };
}

/**
 * Whether the plan is exactly one root fetch sending the client's selection unchanged: the
 * subgraph's graphql-js execution has then shaped the answer as the gateway would (GET /models,
 * :validate, /compute, :query and most single-subgraph operations).
 */
export function sendsClientSelection(node: QueryPlan['node'] | HivePlanNode | undefined, operation: OperationDefinitionNode): boolean {
  if (node?.kind !== 'Fetch' || node.requires?.length) return false;
  const sent = parse(node.operation).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return !!sent && sent.operation === operation.operation && print(sent.selectionSet) === print(operation.selectionSet);
}
