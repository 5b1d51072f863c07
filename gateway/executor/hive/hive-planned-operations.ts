import type { Schema } from '@apollo/federation-internals';
import { federatedSupergraph } from '../supergraph.js';
import type { QueryPlanner } from '@graphql-hive/router-query-planner';
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema, type OperationDefinitionNode, getOperationAST, getVariableValues, print } from 'graphql';
import type { RequestBudget } from '../../../kernel/request-budget.js';
import type { OperationExecutor, OperationRequest } from '../executor.js';
import type { HivePlannerClass } from '../planner.js';
import type { SubgraphClient } from '../subgraph-client.js';
import { type HivePlanNode, type HivePlanRun, executeHivePlan, isExecutableHivePlan, rawSubtreesOf } from './hive-plan-execution.js';
import type { RawSubtrees } from '../passthrough.js';
import type { FetchNode } from '@graphql-hive/router-query-planner';
import { answer, operationShape, sendsClientSelection } from '../answers.js';
import type { ResultShape } from '../result-shaping.js';
import { ClientAliases } from '../client-aliases.js';

/** What every request of an operation needs: its Hive plan and its answer's shape, compiled once. */
interface HivePlannedOperation {
  operation: OperationDefinitionNode;
  node: HivePlanNode | undefined;
  shape: ResultShape;
  passThrough: boolean;
  /** Whether aliases were renamed for the planner (client-aliases.ts): the fetches' errors then get the client's names back. */
  renamed: boolean;
  /** The entity fetches whose answers may keep subtrees as the subgraph's text, for a request whose answer is only written (hive-plan-execution.ts `rawSubtreesOf`). */
  raw: ReadonlyMap<FetchNode, RawSubtrees>;
}

/** An operation Hive's planner refuses: every request of it gets this error. */
interface Unplannable {
  error: GraphQLError;
}

/** A planning the request that started it stopped (its deadline passed): not kept, planned again by the next request. */
const STOPPED = Symbol('planning stopped');

/** Hive's planner: the code of the error an operation gets that no plan can answer correctly. */
export const QUERY_PLANNING_FAILED = 'QUERY_PLANNING_FAILED';

/**
 * Every operation, its first request included, is planned by Hive's query planner and run by
 * hive-plan-execution.ts; the answer is shaped as the gateway shapes it (result-shaping.ts), which
 * leaves the plan's internal aliases out. Plans are kept per parsed document and operation name,
 * as PlannedOperations keeps @apollo/gateway's; the first requests of an operation arriving
 * together share one planning.
 *
 * The document planned is the client's with the aliases that could meet the planner's own fields
 * renamed (client-aliases.ts); shaping gives the answer the client's names back.
 *
 * An operation Hive's planner cannot plan (say, a field of a non-resolvable interface object) is
 * answered with a QUERY_PLANNING_FAILED error rather than a wrong `null` (issue 28). Introspection
 * beside data stays with @apollo/gateway (introspection alone: ../introspection.ts); `@defer` is
 * not in the API schema, and subscriptions are refused before they run.
 *
 * Planning is bounded (issue 35): what the planner is handed is at most GRAPHQL_MAX_SELECTIONS
 * selections once its fragments are spread (pipeline/limits/selections.ts), which bounds the part
 * of planning that cannot be stopped (Hive inlines every fragment spread before it plans, time and
 * memory growing with the count), and the rest (the search for a plan) stops when the request that
 * started it runs out of time: the request budget's signal aborts at its deadline, which Hive's
 * planner checks as it searches. A stopped planning is not kept: the next request plans again.
 */
export class HivePlannedOperations implements OperationExecutor {
  private readonly plans = new WeakMap<DocumentNode, Map<string, Promise<HivePlannedOperation | Unplannable | null | typeof STOPPED>>>();
  private readonly planner: QueryPlanner;
  private federationApiSchema: Schema | undefined;
  private readonly hidesElements: boolean;
  private readonly aliases: ClientAliases;

  constructor(
    Planner: HivePlannerClass,
    private readonly apiSchema: GraphQLSchema,
    private readonly supergraphSdl: string,
  ) {
    this.planner = new Planner(supergraphSdl);
    this.aliases = new ClientAliases(supergraphSdl);
    this.hidesElements = /(?<!directive )@inaccessible\b/.test(supergraphSdl);
  }

  async execute(request: OperationRequest, subgraphs: Readonly<Record<string, SubgraphClient>>): Promise<ExecutionResult | null> {
    const planned = await this.planned(request.document, request.operationName, request.context.budget);
    if (!planned) return null;
    if ('error' in planned) return { errors: [planned.error] };
    const { variables } = request;
    let coerced: Record<string, unknown> = {};
    if (planned.operation.variableDefinitions?.length) {
      const values = getVariableValues(this.apiSchema, planned.operation.variableDefinitions, variables);
      if (values.errors) return { errors: values.errors };
      coerced = values.coerced;
    }
    if (!planned.shape.acceptsVariables(variables)) return null;
    const run: HivePlanRun = { subgraphs, context: request.context, variables, coerced, schema: this.apiSchema, errors: [], raw: request.rawSubtrees ? planned.raw : undefined };
    const gathered = planned.node ? await executeHivePlan(run, planned.node) : Object.create(null);
    if (planned.passThrough && run.errors.length === 0 && Object.keys(gathered).length > 0) return { data: gathered };
    return answer(planned.renamed ? this.aliases.clientErrors(run.errors) : run.errors, planned.shape, gathered, variables);
  }

  /**
   * The operation's plan, planned by its first request (those arriving meanwhile wait for it). When
   * that request's deadline stops the planning, a request still within its own plans again.
   */
  private async planned(document: DocumentNode, operationName: string | undefined, budget: RequestBudget): Promise<HivePlannedOperation | Unplannable | null> {
    let byName = this.plans.get(document);
    if (!byName) this.plans.set(document, (byName = new Map()));
    const name = operationName ?? '';
    for (;;) {
      let planning = byName.get(name);
      if (!planning) byName.set(name, (planning = this.plan(document, operationName, budget.signal)));
      const planned = await planning;
      if (planned !== STOPPED) return planned;
      if (byName.get(name) === planning) byName.delete(name);
      budget.checkDeadline();
    }
  }

  private async plan(document: DocumentNode, operationName: string | undefined, signal: AbortSignal | undefined): Promise<HivePlannedOperation | Unplannable | null | typeof STOPPED> {
    const operation = getOperationAST(document, operationName);
    if (!operation) return null;
    const planned = this.aliases.planned(document);
    this.federationApiSchema ??= federatedSupergraph(this.supergraphSdl).apiSchema;
    // Introspection and what shaping leaves to the gateway are not planned here.
    const shape = operationShape(this.apiSchema, this.federationApiSchema, planned, getOperationAST(planned, operationName)!, (name) => this.aliases.clientName(name));
    if (!shape) return null;
    // Hive's planner listens for the signal's abort, which a signal aborted already never sends again.
    if (signal?.aborted) return STOPPED;
    let node: HivePlanNode | undefined;
    try {
      ({ node } = await this.planner.planAsync(print(planned), operationName ?? null, new Set(), 0, signal));
    } catch {
      if (signal?.aborted) return STOPPED;
      return { error: new GraphQLError('This operation cannot be planned across the subgraphs.', { extensions: { code: QUERY_PLANNING_FAILED } }) };
    }
    if (node && !isExecutableHivePlan(node)) return null;
    return { operation, node, shape, passThrough: !this.hidesElements && sendsClientSelection(node, operation), renamed: planned !== document, raw: rawSubtreesOf(node, shape) };
  }
}
