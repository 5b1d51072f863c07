import { createHash } from 'node:crypto';
import { type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, type OperationDefinitionNode, print } from 'graphql';
import { fragmentsOf } from '../../pipeline/limits/measure.js';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { SubgraphClient } from './subgraph-client.js';

/**
 * What runs a request's operation: the project's executor over a query planner's plans (hive/ on
 * Hive's planner, apollo-planner/ on Apollo's where Hive's does not load), introspection alone
 * over the API schema (introspection.ts). It answers, or declines (null) what it cannot answer as
 * @apollo/gateway would (introspection beside data, a response name of `Object.prototype`, a
 * `@skip`/`@include` variable that is not a boolean, a plan node it does not run), which
 * @apollo/gateway's own executor then answers (apollo-executor.ts).
 */
export interface OperationExecutor {
  execute(request: OperationRequest, subgraphs: Readonly<Record<string, SubgraphClient>>): Promise<ExecutionResult | null>;
}

/** The differential tests' reference (test/federation): every operation declined, so @apollo/gateway answers it. No setting reaches it. */
export const DECLINES_EVERYTHING: OperationExecutor = { execute: async () => null };

/** A request's operation, parsed and validated against the API schema. */
export interface OperationRequest {
  document: DocumentNode;
  /** The operation name the client gave; undefined when the document holds one operation (it is then the one, by GraphQL's rules). */
  operationName: string | undefined;
  variables: Record<string, unknown>;
  context: RequestContext;
  /**
   * The answer is only written as JSON, never read (`/graphql`): subtrees of subgraph answers may
   * then stay as the subgraph's text (passthrough.ts). The REST facades read their answers' fields.
   */
  rawSubtrees?: boolean;
}

/** An operation as the gateway runs it: parsed, validated, with the text and hash @apollo/gateway's query-plan cache is keyed by. */
export interface ResolvedOperation {
  document: DocumentNode;
  /** The operation of `document` that runs. */
  operation: OperationDefinitionNode;
  query: string;
  queryHash: string;
  /** The operation name the gateway is told (the one the request gave). */
  requestOperationName: string | undefined;
}

/** An operation parsed once (a REST route's), with what the request pipeline measures of it. */
export interface PreparedOperation extends ResolvedOperation {
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  operationName: string | null;
  /**
   * Undefined when the document holds one operation: @apollo/gateway keys its query-plan cache by
   * `queryHash` as is when no name is given, and by a fresh sha256 of hash + name on every request
   * otherwise (3% of a GET /models request's CPU, bench/PROFILE.md). The plan is the same.
   */
  requestOperationName: string | undefined;
}

/** A document text's hash as Apollo Server computes it (sha256, hex), which @apollo/gateway keys its plans by. */
export function queryHashOf(query: string): string {
  return createHash('sha256').update(query).digest('hex');
}

export function prepareOperation(document: DocumentNode): PreparedOperation {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const [operation] = operations;
  if (!operation) throw new Error('document holds no operation');
  const query = print(document);
  return {
    document,
    operation,
    fragments: fragmentsOf(document),
    operationName: operation.name?.value ?? null,
    query,
    queryHash: queryHashOf(query),
    requestOperationName: operations.length === 1 ? undefined : (operation.name?.value ?? undefined),
  };
}
