import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import type { RequestHandler, Response } from 'express';
import { type FormattedExecutionResult, GraphQLError, Kind, type OperationDefinitionNode } from 'graphql';
import { DomainError, ERROR_STATUSES, isErrorCode } from '../../kernel/errors.js';
import { isGraphQLRequestCode } from '../../kernel/graphql/graphql-errors.js';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import { fragmentsOf } from './limits/measure.js';
import type { Exchange, RequestPipeline } from './pipeline.js';

/**
 * A GraphQL endpoint (`/graphql`, a subgraph's port) as a door of the request pipeline: `open`
 * starts the exchange when the request arrives (before its body is read) and ends it when the answer
 * has gone out; the Apollo Server plugin refuses a request with no runnable operation, runs the
 * pipeline's operation concerns (the limits) and fills in the answer's errors (`record` does for a
 * plain execution). A REST facade does the same inline (rest-facade/facade.ts).
 */
export function graphqlDoor(pipeline: RequestPipeline, door = 'graphql') {
  const open: RequestHandler = (req, res, next) => {
    const exchange = pipeline.begin(door, 'graphql', req);
    res.locals.exchange = exchange;
    res.setHeader('x-request-id', exchange.requestId);
    res.once('finish', () => {
      exchange.status = res.statusCode;
      pipeline.end(exchange);
      release((exchange as ApolloExchange).apolloContext);
    });
    next();
  };
  const plugin: ApolloServerPlugin<RequestContext> = {
    async requestDidStart(apolloContext) {
      // The trace of a context this door made (open, then graphql-endpoint.ts) is its exchange.
      const exchange = apolloContext.contextValue.trace as ApolloExchange;
      exchange.apolloContext = apolloContext;
      return {
        async didResolveOperation({ operationName, operation, document, schema, request }) {
          exchange.operationName = operationName;
          const runnable = runnableOperation(operation, request.operationName);
          named(exchange, runnable);
          try {
            pipeline.operation({ exchange, operation: runnable, fragments: fragmentsOf(document), schema, variables: request.variables ?? {} });
          } catch (error) {
            throw error instanceof DomainError ? refusal(error) : error;
          }
        },
        async didEncounterErrors({ errors }) {
          record(exchange, errors);
        },
        async willSendResponse({ response }) {
          if (response.body.kind === 'single' && response.body.singleResult.data) answering.set(response.body.singleResult.data, exchange);
        },
      };
    },
  };
  return {
    open,
    plugin,
    /** The exchange of the request being answered on `res`: the trace of its RequestContext. */
    exchangeFor(res: Response): Exchange {
      return res.locals.exchange as Exchange;
    },
  };
}

/** The exchange of each answer Apollo Server is about to write, by its `data` (what `stringifyAnswer` is handed again). */
const answering = new WeakMap<object, Exchange>();

/**
 * Apollo Server's `stringifyResult`: JSON, and when an answer cannot be written (longer than a
 * string can be: an oversized answer) the failure recorded on its exchange before Apollo Server
 * answers 500, so that the log line names its cause; it came out with no code and no cause.
 */
export function stringifyAnswer(result: FormattedExecutionResult): string {
  try {
    return `${JSON.stringify(result)}\n`;
  } catch (error) {
    const exchange = result.data ? answering.get(result.data) : undefined;
    if (exchange) {
      exchange.failures.push(error);
      exchange.codes = ['INTERNAL_ERROR'];
    }
    throw error;
  }
}

/** An exchange that Apollo Server answers keeps Apollo's request context until the answer has gone out. */
interface ApolloExchange extends Exchange {
  apolloContext?: GraphQLRequestContext<RequestContext>;
}

/**
 * What Apollo Server's request context holds of the request, emptied once the answer has gone out.
 * Why: for a gateway, Apollo gives the executor a legacy context whose `response.http.status` is a
 * getter and a setter closing over a copy of this context (its makeGatewayGraphQLRequestContext).
 * V8 holds such per-object accessors from the old generation, so everything the copy reached (the
 * request, express's objects through our context, the answer) outlived the young generation's
 * collections and was promoted: 1.6 MB per scavenge on a one-field query, 4 ms pauses, and the
 * workers' p99 (bench/PROFILE.md, "Workers"). The copy shares these objects, so emptying them lets
 * the request go; what stays behind until the next full collection is a few small objects. Answers
 * without errors no longer take that path (gateway/apollo-answers.ts); answers with errors do.
 */
function release(apolloContext: GraphQLRequestContext<RequestContext> | undefined): void {
  if (!apolloContext) return;
  Object.assign(apolloContext.request, { query: undefined, variables: undefined, extensions: undefined, http: undefined });
  apolloContext.response.body = undefined;
  const context = apolloContext.contextValue as Partial<Record<keyof RequestContext, unknown>>;
  // The budget stays: work still running after an answer at the deadline must go on finding it spent.
  for (const key of Object.keys(context) as (keyof RequestContext)[]) if (key !== 'budget') context[key] = undefined;
}

/**
 * The operation's name on the exchange, or for an anonymous one what the log line names instead
 * (`query { records modelVersion }`: its type and distinct root fields, no argument or alias).
 */
export function named(exchange: Exchange, operation: OperationDefinitionNode): void {
  exchange.operationName = operation.name?.value ?? null;
  if (operation.name) return;
  const fields = new Set(operation.selectionSet.selections.map((selection) => (selection.kind === Kind.FIELD ? selection.name.value : '…')));
  exchange.anonymousOperation = `${operation.operation} { ${[...fields].join(' ')} }`;
}

/** The codes of an answer's errors, the gateway's own failures among them recorded. */
export function record(exchange: Exchange, errors: readonly GraphQLError[]): void {
  exchange.codes = errors.map((error) => codeOf(error, exchange));
}

/**
 * A refusal as Apollo Server answers it: the code and details in `extensions`, and the code's HTTP
 * status (a plugin hook that throws this ends the request with that status).
 */
export function refusal(error: DomainError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: { code: error.code, details: error.details, http: { status: ERROR_STATUSES[error.code] } },
  });
}

/**
 * A request that names no runnable operation is the client's mistake, answered 400
 * OPERATION_RESOLUTION_FAILURE (Apollo Server's own code) with what to change: several operations
 * and no `operationName`, an `operationName` the document does not hold, or a subscription (the
 * graph has none). Left to the gateway's executor, it threw, which came out as 500 INTERNAL_ERROR.
 */
export function runnableOperation(operation: OperationDefinitionNode | null | undefined, requestedName: string | null | undefined): OperationDefinitionNode {
  if (!operation) {
    throw unresolved(requestedName ? `the document holds no operation named "${requestedName}"` : 'the document holds several operations: name the one to run in operationName');
  }
  if (operation.operation === 'subscription') throw unresolved('subscriptions are not supported: this graph has no Subscription type');
  return operation;
}

function unresolved(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } });
}

/**
 * An error's code as the client will see it (graphql-endpoint.ts `maskError`). One without a code
 * failed in the gateway itself (a planning failure, a subgraph's error without a contract code): no
 * resolver recorded it, so it is recorded here, with its cause, for the log line; so is a server
 * error that a remote subgraph relayed (the resolver that recorded it ran in another process).
 */
function codeOf(error: GraphQLError, exchange: Exchange): string {
  const code = error.extensions?.code;
  if (isErrorCode(code)) {
    if (ERROR_STATUSES[code] >= 500) recordUnrecorded(exchange, error);
    return code;
  }
  if (isGraphQLRequestCode(code)) return code;
  exchange.failures.push(error.originalError ?? error);
  return 'INTERNAL_ERROR';
}

/** A server error's cause, unless one is recorded already (by the resolver or the subgraph client that failed). */
export function recordUnrecorded(exchange: Exchange, error: GraphQLError): void {
  if (exchange.failures.length === 0) exchange.failures.push(error.originalError ?? error);
}
