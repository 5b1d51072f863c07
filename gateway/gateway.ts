import { createHash } from 'node:crypto';
import { ApolloGateway, type GraphQLDataSource } from '@apollo/gateway';
import { type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, print } from 'graphql';
import type { RequestContext } from '../kernel/graphql/request-context.js';
import { InProcessDataSource } from './in-process-data-source.js';
import { InflightSharingDataSource } from './inflight-execution.js';
import { PlannedOperations } from './planned-operations.js';

type GatewayExecutor = (requestContext: never) => Promise<unknown>;

export interface Gateway {
  /** The client-visible (API) schema. */
  schema: GraphQLSchema;
  /** Executes an operation that the caller has already parsed and validated against `schema`. */
  execute(operation: PreparedOperation, variables: Record<string, unknown>, context: RequestContext): Promise<ExecutionResult>;
  /** The executor for Apollo Server's request pipeline (planned operations first, then @apollo/gateway's). */
  executor: GatewayExecutor;
  stop(): Promise<void>;
}

/** An operation parsed once, kept with the hash the query-plan cache is keyed by. */
export interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | null;
  query: string;
  queryHash: string;
  /**
   * The operation name the gateway is told. Undefined when the document holds one operation (it
   * is then the operation, by GraphQL's rules): @apollo/gateway keys its query-plan cache by
   * `queryHash` as is when no name is given, and by a fresh sha256 of hash + name on every request
   * otherwise (3% of a GET /models request's CPU, bench/PROFILE.md). The plan is the same.
   */
  requestOperationName: string | undefined;
}

export function prepareOperation(document: DocumentNode): PreparedOperation {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (!operation) throw new Error('document holds no operation');
  const query = print(document);
  return {
    document,
    operation,
    operationName: operation.name?.value ?? null,
    query,
    queryHash: createHash('sha256').update(query).digest('hex'),
    requestOperationName: document.definitions.filter((d) => d.kind === 'OperationDefinition').length === 1 ? undefined : (operation.name?.value ?? undefined),
  };
}

/**
 * @apollo/gateway over the committed supergraph (no introspection polling). The executor is called
 * directly, bypassing a server's request pipeline: the REST facades hold pre-parsed, pre-validated
 * documents, and the GraphQL endpoint has already done that work in Apollo Server. @apollo/gateway
 * plans every operation and answers its first request; later requests run that plan
 * (planned-operations.ts).
 */
export async function startGateway(supergraphSdl: string, dataSources: Record<string, GraphQLDataSource>): Promise<Gateway & { apollo: ApolloGateway }> {
  // Set once the API schema is known (below); the gateway calls it only while executing.
  let planned: PlannedOperations | undefined;
  // The data sources as the gateway uses them, for the planned `/graphql` operations.
  const gatewaySources: Record<string, GraphQLDataSource> = {};
  const apollo = new ApolloGateway({
    supergraphSdl,
    // Never show query plans to clients, whatever NODE_ENV says.
    __exposeQueryPlanExperimental: false,
    experimental_didResolveQueryPlan: (resolved) => planned?.didResolveQueryPlan(resolved),
    buildService: ({ name }) => {
      const source = dataSources[name];
      if (!source) throw new Error(`no data source for subgraph ${name}`);
      // Planned fetches of `/graphql` share identical in-flight queries (remote sources do it per
      // HTTP fetch). The REST facades' operations do not: a REST request is one execution, as in
      // the original services, and that per-request cost is what the facade bench measures.
      return (gatewaySources[name] = source instanceof InProcessDataSource ? new InflightSharingDataSource(source) : source);
    },
  });
  const { schema, executor } = await apollo.load();
  planned = new PlannedOperations(schema, supergraphSdl);
  const gatewayExecutor = executor as GatewayExecutor;
  return {
    apollo,
    schema,
    // Apollo Server's requests: a planned operation runs its plan (planned-operations.ts).
    executor: async (requestContext) => (await planned!.execute(requestContext, gatewaySources)) ?? gatewayExecutor(requestContext),
    async execute(prepared, variables, context) {
      const requestContext = {
        request: { query: prepared.query, variables, operationName: prepared.requestOperationName },
        document: prepared.document,
        operation: prepared.operation,
        operationName: prepared.operationName,
        queryHash: prepared.queryHash,
        source: prepared.query,
        schema,
        context,
        contextValue: context,
        metrics: {},
        logger: console,
      };
      return (await planned!.execute(requestContext as never, dataSources)) ?? ((await gatewayExecutor(requestContext as never)) as ExecutionResult);
    },
    stop: () => apollo.stop(),
  };
}
