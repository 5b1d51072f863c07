import { type DocumentNode, type EnumTypeDefinitionNode, type ExecutionResult, type GraphQLSchema, Kind, parse } from 'graphql';
import type { Logger } from 'pino';
import type { RequestContext } from '../kernel/graphql/request-context.js';
import { boundedApolloCache } from './bounded-apollo-cache.js';
import type { StockExecution } from './executor/apollo-executor.js';
import { federatedSupergraph } from './executor/supergraph.js';
import { DECLINES_EVERYTHING, type OperationExecutor, type ResolvedOperation } from './executor/executor.js';
import { InflightSharing } from './executor/inflight-sharing.js';
import { HivePlannedOperations } from './executor/hive/hive-planned-operations.js';
import { IntrospectionAnswers } from './executor/introspection.js';
import { type PlannerMode, loadHivePlanner } from './executor/planner.js';
import { type SubgraphClient, apolloDataSource } from './executor/subgraph-client.js';
import { DemandDirectives, declareDemand } from '../pipeline/limits/demand-directives.js';

export interface Gateway {
  /** The client-visible (API) schema. */
  schema: GraphQLSchema;
  /**
   * Runs an operation parsed and validated against `schema` (the runner holds it to its request's
   * budget: pipeline/graphql-run.ts): the project's executor answers it, or declines it to
   * @apollo/gateway's own (executor/executor.ts).
   */
  execute(request: GatewayRequest): Promise<ExecutionResult>;
  stop(): Promise<void>;
}

/** An operation to run, from a REST route or `/graphql`. */
export interface GatewayRequest {
  operation: ResolvedOperation;
  variables: Record<string, unknown>;
  context: RequestContext;
  /** `/graphql`'s: identical subgraph queries in flight are shared (executor/inflight-sharing.ts). */
  shareInFlight: boolean;
  /** `/graphql`'s: the answer is only written, so parts of subgraph answers may stay as their text (executor/passthrough.ts); a REST route reads its answer. */
  rawSubtrees?: boolean;
}

export interface GatewayOptions {
  /** Who plans (executor/planner.ts); resolved, so `hive` loads here. */
  planner: PlannerMode;
  /** @apollo/gateway's own executor for every operation: the differential tests' reference (test/federation), which no setting reaches. */
  stockExecutorOnly?: boolean;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
}

/**
 * The supergraph committed (or handed over) behind one executor, reaching each subgraph through a
 * SubgraphClient (in this process or over HTTP). Every operation is planned by Hive's planner
 * (executor/hive/) or, where Hive's binary does not load, by Apollo's (executor/apollo-planner/),
 * once per operation, and run by the project's executor. The executor is called directly, bypassing
 * a server's request pipeline: the REST facades hold pre-parsed, pre-validated documents, and
 * `/graphql` has done that work in Apollo Server.
 *
 * Introspection is answered over the API schema (executor/introspection.ts). What the executor
 * declines is @apollo/gateway's, loaded at the first such operation, with a log line: its modules
 * and its own planner were a fifth of a worker's start, which every process paid for operations
 * most never receive.
 *
 * `/graphql` shares identical subgraph queries in flight (executor/inflight-sharing.ts); the REST
 * facades' operations do not: a REST request is one execution, as in the original services, and
 * that per-request cost is what the facade bench measures.
 */
export async function startGateway(supergraphSdl: string, subgraphs: Readonly<Record<string, SubgraphClient>>, options: GatewayOptions): Promise<Gateway> {
  const document = parse(supergraphSdl);
  const unreached = joinedSubgraphs(document).filter((name) => !subgraphs[name]);
  if (unreached.length > 0) throw new Error(`the supergraph names subgraphs this gateway has no client for: ${unreached.join(', ')}`);
  const shared = Object.fromEntries(Object.entries(subgraphs).map(([name, client]) => [name, new InflightSharing(client)]));
  // The API schema as @apollo/gateway makes it from the supergraph (`updateWithSchemaAndNotify`).
  const schema = federatedSupergraph(supergraphSdl).apiSchema.toGraphQLJSSchema();
  // The API schema has lost the subgraphs' @cost and @listSize; composition kept them in the supergraph.
  declareDemand(schema, DemandDirectives.fromDocument(document));
  const executor = await operationExecutor(options, schema, supergraphSdl);
  let stock: Promise<StockExecution> | undefined;
  const stockExecution = () => (stock ??= loadStockExecution(supergraphSdl, shared, schema, options.logger));
  return {
    schema,
    async execute({ operation, variables, context, shareInFlight, rawSubtrees }) {
      const request = { document: operation.document, operationName: operation.requestOperationName, variables, context, rawSubtrees };
      return (await executor.execute(request, shareInFlight ? shared : subgraphs)) ?? (await stockExecution()).execute(operation, variables, context);
    },
    stop: async () => {
      if (stock) await (await stock).stop();
    },
  };
}

/** The subgraphs a supergraph joins: the names of its `join__Graph` values (`@join__graph(name:)`). */
function joinedSubgraphs(document: DocumentNode): string[] {
  const graphs = document.definitions.find((definition): definition is EnumTypeDefinitionNode => definition.kind === Kind.ENUM_TYPE_DEFINITION && definition.name.value === 'join__Graph');
  return (graphs?.values ?? []).flatMap((value) => {
    const name = value.directives?.find((directive) => directive.name.value === 'join__graph')?.arguments?.find((argument) => argument.name.value === 'name')?.value;
    return name?.kind === Kind.STRING ? [name.value] : [];
  });
}

/**
 * @apollo/gateway over the same supergraph (no introspection polling), its fetches through the same
 * clients, sharing in flight: only the operations the project's executor declines reach it.
 */
async function loadStockExecution(supergraphSdl: string, shared: Readonly<Record<string, SubgraphClient>>, schema: GraphQLSchema, logger: GatewayOptions['logger']): Promise<StockExecution> {
  const [{ apolloGateway }, { stockExecution }] = await Promise.all([import('./apollo-gateway.js'), import('./executor/apollo-executor.js')]);
  const apollo = apolloGateway({
    supergraphSdl,
    // Never show query plans to clients, whatever NODE_ENV says.
    __exposeQueryPlanExperimental: false,
    // Query plans by document hash and operation name, bounded by entries and by their JSON (as @apollo/gateway measures them).
    queryPlannerConfig: { cache: boundedApolloCache((plan) => JSON.stringify(plan).length) },
    buildService: ({ name }) => {
      const client = shared[name];
      if (!client) throw new Error(`no client for subgraph ${name}`);
      return apolloDataSource(client);
    },
  });
  const loaded = await apollo.load();
  logger.info("@apollo/gateway loaded, for the operations the project's executor declines");
  return { execute: stockExecution(loaded.executor, schema, logger), stop: () => apollo.stop() };
}

async function operationExecutor(options: GatewayOptions, schema: GraphQLSchema, supergraphSdl: string): Promise<OperationExecutor> {
  if (options.stockExecutorOnly) return DECLINES_EVERYTHING;
  return new IntrospectionAnswers(schema, await plannedOperations(options, schema, supergraphSdl));
}

/** Hive's planner, or Apollo's (loaded only where it plans: its modules are a twentieth of a start). */
async function plannedOperations(options: GatewayOptions, schema: GraphQLSchema, supergraphSdl: string): Promise<OperationExecutor> {
  if (options.planner === 'apollo') return new (await import('./executor/apollo-planner/planned-operations.js')).PlannedOperations(schema, supergraphSdl);
  const hive = loadHivePlanner();
  if ('error' in hive) throw hive.error;
  return new HivePlannedOperations(hive.planner, schema, supergraphSdl);
}
