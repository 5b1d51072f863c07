import type { Experimental_DidResolveQueryPlanCallback, GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { type ExecutionResult, GraphQLError, type GraphQLSchema, type OperationDefinitionNode, getVariableValues, parse, print } from 'graphql';

type QueryPlan = Parameters<Experimental_DidResolveQueryPlanCallback>[0]['queryPlan'];
type RequestContext = Parameters<Experimental_DidResolveQueryPlanCallback>[0]['requestContext'];
type FetchNode = Extract<NonNullable<QueryPlan['node']>, { kind: 'Fetch' }>;

/**
 * A fast path for the REST facades' fixed operations whose query plan is one fetch from one
 * subgraph, the selection sent unchanged (GET /models, :validate, /compute, :query, …).
 *
 * @apollo/gateway's executor does, per request, work whose result is the same for a fixed
 * operation: an operation context, `operationFromDocument` (parsing the client operation into
 * federation's model again), query-plan lookup, and result shaping (`computeResponse`), which for a
 * plan of one fetch whose selection is the client's own selection returns the subgraph's data as
 * it came. Together about 15% of a GET /models request's CPU (bench/PROFILE.md). This path sends
 * the plan's one fetch to the subgraph's data source itself, exactly as `executeFetch` does (same
 * operation text, variables filtered by the fetch's usages, same context and request context) and
 * relays errors as `downstreamServiceError` does (message, `extensions` + `serviceName`, code
 * DOWNSTREAM_SERVICE_ERROR when the subgraph gave none). Variables are still coerced against the
 * API schema first, as the gateway's `validateIncomingRequest` does.
 *
 * The plan itself comes from the gateway: the first request of each operation goes through the
 * executor, and `experimental_didResolveQueryPlan` hands over its plan. A plan of any other shape
 * (several fetches, entity fetches, rewrites, conditions) or a fetch whose selection differs from
 * the client's keeps using the executor.
 */
export class SingleFetchPlans {
  private readonly plans = new WeakMap<object, FetchNode | null>();

  constructor(
    private readonly apiSchema: GraphQLSchema,
    private readonly dataSources: Record<string, GraphQLDataSource>,
  ) {}

  /** For `experimental_didResolveQueryPlan`: remembers the plan of a keyed request's operation. */
  readonly didResolveQueryPlan: Experimental_DidResolveQueryPlanCallback = ({ queryPlan, requestContext }) => {
    const key = (requestContext as { singleFetchKey?: object }).singleFetchKey;
    if (key && !this.plans.has(key)) this.plans.set(key, singleFetchOf(queryPlan, requestContext.operation as OperationDefinitionNode | undefined));
  };

  /** Whether requests for `key` can skip the executor (known after the first one has run). */
  has(key: object): boolean {
    return !!this.plans.get(key);
  }

  async execute(key: object, operation: OperationDefinitionNode, requestContext: RequestContext): Promise<ExecutionResult> {
    const fetch = this.plans.get(key)!;
    const provided = requestContext.request.variables ?? {};
    if (operation.variableDefinitions?.length) {
      const { errors } = getVariableValues(this.apiSchema, operation.variableDefinitions, provided);
      if (errors) return { errors };
    }
    const variables: Record<string, unknown> = Object.create(null);
    for (const name of fetch.variableUsages ?? []) {
      if (Object.prototype.hasOwnProperty.call(provided, name) && provided[name] !== undefined) variables[name] = provided[name];
    }
    const source = this.dataSources[fetch.serviceName];
    let response;
    try {
      if (!source) throw new Error(`Couldn't find service with name "${fetch.serviceName}"`);
      response = await source.process({
        kind: 'incoming operation',
        request: { query: fetch.operation, variables, operationName: fetch.operationName, http: undefined },
        incomingRequestContext: requestContext,
        context: requestContext.context,
        document: fetch.operationDocumentNode,
        pathInIncomingRequest: [],
      } as unknown as GraphQLDataSourceProcessOptions);
    } catch (error) {
      // executeNode collects a failed fetch as the response's error.
      return { errors: [error as GraphQLError], data: null };
    }
    if (!response.errors?.length) return { data: response.data ?? null };
    return { errors: response.errors.map((error) => downstreamError(error, fetch.serviceName)), data: response.data ?? null };
  }
}

/** The plan's one fetch, when the plan is exactly one plain fetch sending the client's selection. */
function singleFetchOf(plan: QueryPlan, operation: OperationDefinitionNode | undefined): FetchNode | null {
  const node = plan.node;
  if (!operation || node?.kind !== 'Fetch') return null;
  if (node.requires?.length || node.inputRewrites?.length || node.outputRewrites?.length || node.contextRewrites?.length || node.hasDefers) return null;
  const sent = parse(node.operation).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (!sent || sent.operation !== operation.operation) return null;
  return print(sent.selectionSet) === print(operation.selectionSet) ? node : null;
}

/** As @apollo/gateway's `downstreamServiceError` (the path of a root fetch is the subgraph's path). */
function downstreamError(error: { message?: string; path?: ReadonlyArray<string | number>; extensions?: Record<string, unknown> }, serviceName: string): GraphQLError {
  const message = error.message || `Error while fetching subquery from service "${serviceName}"`;
  return new GraphQLError(message, {
    path: error.path,
    extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', ...error.extensions, serviceName },
  });
}
