import { type ExecutionResult, type GraphQLSchema, parse } from 'graphql';
import type { Logger } from 'pino';
import type { RequestContext } from '../kernel/graphql/request-context.js';
import { answerWithinBudget } from '../kernel/graphql/budgeted-answer.js';
import { apolloGateway } from './apollo-gateway.js';
import { boundedApolloCache } from './bounded-apollo-cache.js';
import { stockExecution } from './executor/apollo-executor.js';
import { type ExecutorMode, type OperationExecutor, type ResolvedOperation, STOCK_ONLY } from './executor/executor.js';
import { InflightSharing } from './executor/inflight-sharing.js';
import { PlannedOperations } from './executor/planned/planned-operations.js';
import { HivePlannedOperations } from './executor/planned/hive-planned-operations.js';
import { type PlannerMode, loadHivePlanner } from './executor/planner.js';
import { type SubgraphClient, apolloDataSource } from './executor/subgraph-client.js';
import { DemandDirectives, declareDemand } from '../pipeline/limits/demand-directives.js';

export interface Gateway {
  /** The client-visible (API) schema. */
  schema: GraphQLSchema;
  /**
   * Runs an operation parsed and validated against `schema`, within its request's budget: the
   * OperationExecutor of GATEWAY_EXECUTOR answers it or declines, and a declined operation is
   * @apollo/gateway's own executor's (the planned executor is never asked again).
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
}

export interface GatewayOptions {
  executor: ExecutorMode;
  /** Who plans for the planned executor (executor/planner.ts); resolved, so `hive` loads here. */
  planner: PlannerMode;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
}

/**
 * @apollo/gateway over the committed supergraph (no introspection polling), reaching each subgraph
 * through a SubgraphClient (in this process or over HTTP). The executor is called directly,
 * bypassing a server's request pipeline: the REST facades hold pre-parsed, pre-validated documents,
 * and `/graphql` has done that work in Apollo Server. Each request is offered to the
 * OperationExecutor of GATEWAY_EXECUTOR first (executor/executor.ts): with `planned` and
 * GATEWAY_PLANNER=hive, Hive's planner plans every operation and every request runs its plan
 * (executor/planned/hive-planned-operations.ts); with GATEWAY_PLANNER=apollo, @apollo/gateway plans
 * every operation and answers its first request, and later requests run that plan
 * (executor/planned/); with `apollo`, every request is the gateway's own.
 *
 * `/graphql` shares identical subgraph queries in flight (executor/inflight-sharing.ts); the REST
 * facades' operations do not: a REST request is one execution, as in the original services, and
 * that per-request cost is what the facade bench measures.
 */
export async function startGateway(supergraphSdl: string, subgraphs: Readonly<Record<string, SubgraphClient>>, options: GatewayOptions): Promise<Gateway> {
  const shared = Object.fromEntries(Object.entries(subgraphs).map(([name, client]) => [name, new InflightSharing(client)]));
  // Known once the API schema is (below); the gateway calls it only while executing.
  let executor: OperationExecutor = STOCK_ONLY;
  const apollo = apolloGateway({
    supergraphSdl,
    // Never show query plans to clients, whatever NODE_ENV says.
    __exposeQueryPlanExperimental: false,
    // Query plans by document hash and operation name, bounded by entries and by their JSON (as @apollo/gateway measures them).
    queryPlannerConfig: { cache: boundedApolloCache((plan) => JSON.stringify(plan).length) },
    experimental_didResolveQueryPlan: ({ queryPlan, requestContext: { document, operation, request } }) => {
      if (document && operation) executor.onPlan?.({ queryPlan, document, operation, operationName: request.operationName });
    },
    buildService: ({ name }) => {
      const client = shared[name];
      if (!client) throw new Error(`no client for subgraph ${name}`);
      return apolloDataSource(client);
    },
  });
  const loaded = await apollo.load();
  const { schema } = loaded;
  // The API schema has lost the subgraphs' @cost and @listSize; composition kept them in the supergraph.
  declareDemand(schema, DemandDirectives.fromDocument(parse(supergraphSdl)));
  const stock = stockExecution(loaded.executor, schema, options.logger);
  executor = operationExecutor(options, schema, supergraphSdl);
  return {
    schema,
    execute({ operation, variables, context, shareInFlight }) {
      const request = { document: operation.document, operationName: operation.requestOperationName, variables, context };
      const run = async () => (await executor.execute(request, shareInFlight ? shared : subgraphs)) ?? stock(operation, variables, context);
      // Every answer, whichever executor makes it, is held to the request's budget (budgeted-answer.ts).
      return answerWithinBudget(context.budget, run);
    },
    stop: () => apollo.stop(),
  };
}

function operationExecutor(options: GatewayOptions, schema: GraphQLSchema, supergraphSdl: string): OperationExecutor {
  if (options.executor === 'apollo') return STOCK_ONLY;
  if (options.planner === 'apollo') return new PlannedOperations(schema, supergraphSdl);
  const hive = loadHivePlanner();
  if ('error' in hive) throw hive.error;
  return new HivePlannedOperations(hive.planner, schema, supergraphSdl);
}
