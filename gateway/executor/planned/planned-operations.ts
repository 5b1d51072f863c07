import { type Schema, Supergraph, operationFromDocument } from '@apollo/federation-internals';
import { QueryPlanner } from '@apollo/query-planner';
import {
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  getOperationAST,
  getVariableValues,
  parse,
  print,
} from 'graphql';
import type { OperationExecutor, OperationRequest, ResolvedPlan } from '../executor.js';
import type { SubgraphClient } from '../subgraph-client.js';
import { type PlanNode, type PlanRun, type QueryPlan, executePlan, isExecutablePlan } from './plan-execution.js';
import { type ResultShape, compileResultShape } from './result-shaping.js';
import type { HivePlanNode } from './hive-plan-execution.js';
import { ClientAliases } from './client-aliases.js';

/** What the second and later requests of an operation need: its plan, compiled. */
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
 * Operations executed from the query plan @apollo/gateway made for them, without the gateway's
 * per-request work: building an operation context, reading the operation into federation-internals'
 * model (`operationFromDocument`), and shaping the answer through that model (`computeResponse`),
 * which for a large answer (the gateway bench's 125 KB passport) was most of an in-process
 * request's CPU (bench/PROFILE.md). Here the model is read once per operation and compiled.
 *
 * The first request of each operation goes through the gateway's executor, which plans it (and
 * keeps the plan in its cache); `experimental_didResolveQueryPlan` hands the plan over, and later
 * requests with the same parsed document and operation name run it here: variables are coerced
 * against the API schema first, as the gateway's `validateIncomingRequest` does, the fetches run as
 * its `executeNode` runs them (plan-execution.ts), and the answer is shaped as `computeResponse`
 * shapes it (result-shaping.ts). A plan of another kind (conditions, `@defer`, rewrites) or an
 * operation selecting introspection fields stays with the gateway's executor.
 *
 * Except an operation with aliases that could meet the fields a planner adds (client-aliases.ts):
 * the gateway plans and fetches them as the client wrote them, and answers wrong (its plan reads a
 * key or a required field from the client's alias of another field). Such an operation is planned
 * here, by the same query planner over the same supergraph, with those aliases renamed, from its
 * first request; when its plan is of a kind kept by the gateway, the gateway answers it as before.
 */
export class PlannedOperations implements OperationExecutor {
  private readonly plans = new WeakMap<DocumentNode, Map<string, PlannedOperation | null>>();
  /** federation-internals' supergraph and API schema (160 ms to build), built with the first plan rather than at every start. */
  private supergraph: Supergraph | undefined;
  private federationApiSchema: Schema | undefined;
  /** Apollo's planner, for the operations planned here (1 MB, 50 ms to build for our supergraph), built with the first. */
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

  /** Compiles the plan of an operation seen for the first time. */
  readonly onPlan = ({ queryPlan, document, operation, operationName }: ResolvedPlan): void => {
    const byName = this.byName(document);
    const name = operationName ?? '';
    if (!byName.has(name)) byName.set(name, this.compile(queryPlan, document, operation, operation));
  };

  /**
   * The answer to a request whose operation was planned before, from `subgraphs`; null when the
   * gateway's executor must answer it (not planned yet, a plan it keeps, or `@skip`/`@include`
   * variables that are not booleans, which the gateway reports in its own words).
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

  /** What the operation runs from: compiled, null when the gateway keeps it, undefined when the gateway is to plan it first. */
  private planned(document: DocumentNode, operationName: string | undefined): PlannedOperation | null | undefined {
    const byName = this.byName(document);
    const name = operationName ?? '';
    if (byName.has(name)) return byName.get(name);
    const renamed = this.aliases.planned(document);
    // No operation of that name: the gateway refuses it (and no name the document lacks is remembered).
    const operation = getOperationAST(document, operationName);
    if (renamed === document || !operation) return undefined;
    const planned = this.planHere(renamed, operation, operationName);
    byName.set(name, planned);
    return planned;
  }

  /** Plans `planned` (the client's document with aliases renamed) as the gateway plans, with its planner; null when the gateway must answer it. */
  private planHere(planned: DocumentNode, operation: OperationDefinitionNode, operationName: string | undefined): PlannedOperation | null {
    this.planner ??= new QueryPlanner(this.supergraphOf());
    let plan: QueryPlan;
    try {
      plan = this.planner.buildQueryPlan(operationFromDocument(this.federationApiSchemaOf(), planned, { operationName }));
    } catch {
      return null; // the gateway's executor fails it, in its own words
    }
    return this.compile(plan, planned, getOperationAST(planned, operationName)!, operation);
  }

  private compile(plan: QueryPlan, document: DocumentNode, operation: OperationDefinitionNode, client: OperationDefinitionNode): PlannedOperation | null {
    if (plan.node && !isExecutablePlan(plan.node, this.apiSchema)) return null;
    const shape = operationShape(this.apiSchema, this.federationApiSchemaOf(), document, operation, (name) => this.aliases.clientName(name));
    if (!shape) return null;
    return { operation: client, node: plan.node, shape, passThrough: !this.hidesElements && sendsClientSelection(plan.node, client), renamed: operation !== client };
  }

  private byName(document: DocumentNode): Map<string, PlannedOperation | null> {
    let byName = this.plans.get(document);
    if (!byName) this.plans.set(document, (byName = new Map()));
    return byName;
  }

  private supergraphOf(): Supergraph {
    return (this.supergraph ??= Supergraph.build(this.supergraphSdl));
  }

  private federationApiSchemaOf(): Schema {
    return (this.federationApiSchema ??= this.supergraphOf().apiSchema());
  }
}

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
export function sendsClientSelection(node: PlanNode | HivePlanNode | undefined, operation: OperationDefinitionNode): boolean {
  if (node?.kind !== 'Fetch' || node.requires?.length) return false;
  const sent = parse(node.operation).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return !!sent && sent.operation === operation.operation && print(sent.selectionSet) === print(operation.selectionSet);
}
