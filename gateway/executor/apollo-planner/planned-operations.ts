import { type Schema, type Supergraph, operationFromDocument } from '@apollo/federation-internals';
import { federatedSupergraph } from '../supergraph.js';
import { type QueryPlan, QueryPlanner } from '@apollo/query-planner';
import { type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, getOperationAST, getVariableValues } from 'graphql';
import type { OperationExecutor, OperationRequest } from '../executor.js';
import type { SubgraphClient } from '../subgraph-client.js';
import type { PlanRun } from '../fetching.js';
import { answer, operationShape, sendsClientSelection } from '../answers.js';
import type { ResultShape } from '../result-shaping.js';
import { ClientAliases } from '../client-aliases.js';
import { type PlanNode, executePlan, isExecutablePlan } from './plan-execution.js';

/** What every request of an operation needs: its plan, compiled. */
interface PlannedOperation {
  /** The client's operation (its variables). */
  operation: OperationDefinitionNode;
  node: PlanNode | undefined;
  shape: ResultShape;
  /** The plan is one fetch sending the client's own selection: an answer without errors is the subgraph's data as it comes. */
  passThrough: boolean;
  /** Whether aliases were renamed for the planner (client-aliases.ts): the fetches' errors then get the client's names back. */
  renamed: boolean;
}

/**
 * The fallback where Hive's planner does not load (planner.ts): operations planned by Apollo's query
 * planner (`@apollo/query-planner`, the one @apollo/gateway plans with, over the same supergraph) and
 * run by the project's executor, without @apollo/gateway's per-request work: building an operation
 * context, reading the operation into federation-internals' model (`operationFromDocument`), and
 * shaping the answer through that model (`computeResponse`), which for a large answer (the gateway
 * bench's 125 KB passport) was most of an in-process request's CPU (bench/PROFILE.md). Here each
 * operation is planned and its shape compiled once, at its first request: variables are coerced
 * against the API schema first, as the gateway's `validateIncomingRequest` does, the fetches run as
 * its `executeNode` runs them (plan-execution.ts), and the answer is shaped as `computeResponse`
 * shapes it (answers.ts). A plan of another kind (conditions, `@defer`, rewrites), an operation
 * selecting introspection fields, or one the planner refuses is @apollo/gateway's (apollo-executor.ts).
 *
 * Aliases that could meet the fields a planner adds (client-aliases.ts) are renamed before planning:
 * Apollo's planner otherwise reads a key or a required field from the client's alias of another field.
 */
export class PlannedOperations implements OperationExecutor {
  private readonly plans = new WeakMap<DocumentNode, Map<string, PlannedOperation | null>>();
  /** Apollo's planner (1 MB, 50 ms to build for our supergraph), built with the first plan. */
  private planner: QueryPlanner | undefined;
  private readonly aliases: ClientAliases;
  /**
   * With `@inaccessible` elements in the supergraph, a subgraph's data may hold values the API
   * schema hides (an enum value, an object type), which only the gateway's shaping removes.
   */
  private readonly hidesElements: boolean;

  constructor(
    private readonly apiSchema: GraphQLSchema,
    private readonly supergraphSdl: string,
  ) {
    this.hidesElements = /(?<!directive )@inaccessible\b/.test(supergraphSdl);
    this.aliases = new ClientAliases(supergraphSdl);
  }

  /**
   * The answer to a request from `subgraphs`; null when @apollo/gateway's executor must answer it (a
   * plan it keeps, or `@skip`/`@include` variables that are not booleans, which it reports in its own words).
   */
  async execute(request: OperationRequest, subgraphs: Readonly<Record<string, SubgraphClient>>): Promise<ExecutionResult | null> {
    const planned = this.planned(request.document, request.operationName);
    if (!planned) return null;
    const { variables } = request;
    if (planned.operation.variableDefinitions?.length) {
      const { errors } = getVariableValues(this.apiSchema, planned.operation.variableDefinitions, variables);
      if (errors) return { errors };
    }
    if (!planned.shape.acceptsVariables(variables)) return null;
    const run: PlanRun = { subgraphs, context: request.context, variables, schema: this.apiSchema, errors: [] };
    const gathered = planned.node ? await executePlan(run, planned.node) : Object.create(null);
    if (planned.passThrough && run.errors.length === 0 && Object.keys(gathered).length > 0) return { data: gathered };
    return answer(planned.renamed ? this.aliases.clientErrors(run.errors) : run.errors, planned.shape, gathered, variables);
  }

  /** What the operation runs from, planned at its first request; null when @apollo/gateway keeps it. */
  private planned(document: DocumentNode, operationName: string | undefined): PlannedOperation | null {
    let byName = this.plans.get(document);
    if (!byName) this.plans.set(document, (byName = new Map()));
    const name = operationName ?? '';
    let planned = byName.get(name);
    if (planned === undefined) {
      const operation = getOperationAST(document, operationName);
      // No operation of that name: @apollo/gateway refuses it (and no name the document lacks is remembered).
      if (!operation) return null;
      byName.set(name, (planned = this.plan(this.aliases.planned(document), operation, operationName)));
    }
    return planned;
  }

  /** Plans `planned` (the client's document, aliases renamed where needed) with Apollo's planner; null when @apollo/gateway must answer it. */
  private plan(planned: DocumentNode, operation: OperationDefinitionNode, operationName: string | undefined): PlannedOperation | null {
    this.planner ??= new QueryPlanner(this.supergraphOf());
    let plan: QueryPlan;
    try {
      plan = this.planner.buildQueryPlan(operationFromDocument(this.federationApiSchemaOf(), planned, { operationName }));
    } catch {
      return null; // @apollo/gateway's executor fails it, in its own words
    }
    if (plan.node && !isExecutablePlan(plan.node, this.apiSchema)) return null;
    const plannedOperation = getOperationAST(planned, operationName)!;
    const shape = operationShape(this.apiSchema, this.federationApiSchemaOf(), planned, plannedOperation, (name) => this.aliases.clientName(name));
    if (!shape) return null;
    return {
      operation,
      node: plan.node,
      shape,
      passThrough: !this.hidesElements && sendsClientSelection(plan.node, operation),
      renamed: plannedOperation !== operation,
    };
  }

  private supergraphOf(): Supergraph {
    return federatedSupergraph(this.supergraphSdl).supergraph;
  }

  private federationApiSchemaOf(): Schema {
    return federatedSupergraph(this.supergraphSdl).apiSchema;
  }
}
