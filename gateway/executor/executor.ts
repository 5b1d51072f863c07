import { createHash } from 'node:crypto';
import type { QueryPlan } from '@apollo/query-planner';
import { type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, type OperationDefinitionNode, print } from 'graphql';
import { fragmentsOf } from '../../pipeline/limits/measure.js';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { SubgraphClient } from './subgraph-client.js';

/**
 * `GATEWAY_EXECUTOR`: `planned` (the default) answers an operation's later requests from the query
 * plan @apollo/gateway made for its first (planned/); `apollo` leaves every request to
 * @apollo/gateway's own executor: what an operator switches to the day an answer looks wrong, and
 * what an upgrade of @apollo/gateway is checked with (the suite runs in both modes).
 */
export const EXECUTOR_MODES = ['planned', 'apollo'] as const;
export type ExecutorMode = (typeof EXECUTOR_MODES)[number];

/**
 * What runs a request's operation besides @apollo/gateway's own executor. The gateway asks it first
 * and falls back to its own executor when it declines (null); `onPlan` sees each plan the gateway
 * makes. `apollo` mode is the executor that declines everything.
 */
export interface OperationExecutor {
  readonly onPlan?: (plan: ResolvedPlan) => void;
  execute(request: OperationRequest, subgraphs: Readonly<Record<string, SubgraphClient>>): Promise<ExecutionResult | null>;
}

/** A plan @apollo/gateway made, with the operation it is for (what its `experimental_didResolveQueryPlan` reports). */
export interface ResolvedPlan {
  queryPlan: QueryPlan;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The operation name the request gave, if any. */
  operationName: string | undefined;
}

/** GATEWAY_EXECUTOR=apollo: every request is @apollo/gateway's. */
export const STOCK_ONLY: OperationExecutor = { execute: async () => null };

/** A request's operation, parsed and validated against the API schema. */
export interface OperationRequest {
  document: DocumentNode;
  /** The operation name the client gave; undefined when the document holds one operation (it is then the one, by GraphQL's rules). */
  operationName: string | undefined;
  variables: Record<string, unknown>;
  context: RequestContext;
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
