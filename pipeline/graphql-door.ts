import { GraphQLError, Kind, type OperationDefinitionNode } from 'graphql';
import { ERROR_STATUSES, isErrorCode } from '../kernel/errors.js';
import { isGraphQLRequestCode } from '../kernel/graphql/graphql-errors.js';
import { graphqlRefusal } from '../kernel/http/graphql-body.js';
import { recordFailure, recordFirstFailure } from '../kernel/graphql/request-context.js';
import type { Door, Exchange } from './pipeline.js';
import { RequestMistake } from './request-mistake.js';

/**
 * A GraphQL endpoint (`/graphql`, a subgraph's port) as a door of the request pipeline: its
 * refusals in GraphQL's error shape (JSON as express writes it), a client's mistakes with their
 * GraphQL request code. What runs in between is the endpoint's own (gateway/graphql-endpoint.ts,
 * server/subgraph-server.ts), with the helpers below.
 */
export function graphqlDoor(kind: 'graphql' | 'subgraph', name: string): Door {
  return {
    name,
    kind,
    protocol: 'graphql',
    json: 'application/json; charset=utf-8',
    refuse: graphqlRefusal,
    mistake: (error) => ({ status: 400, body: { errors: error.errors.map(({ message, code }) => ({ message, extensions: { code } })) } }),
  };
}

/** The admin paths of a GraphQL port (the gateway's, a subgraph's): refusals in the GraphQL error shape of the port's others. */
export const ADMIN_DOOR: Door = { name: 'admin', kind: 'admin', protocol: 'rest', json: 'application/json; charset=utf-8', refuse: graphqlRefusal };

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

/** A request naming no runnable operation (`runnableOperation`) as the door's refusal. */
export function mistakeOf(error: GraphQLError): RequestMistake {
  return new RequestMistake([{ message: error.message, code: String(error.extensions.code) }]);
}

/** The codes of an answer's errors, the gateway's own failures among them recorded. */
export function record(exchange: Exchange, errors: readonly GraphQLError[]): void {
  exchange.codes = errors.map((error) => codeOf(error, exchange));
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
    if (ERROR_STATUSES[code] >= 500) recordFirstFailure(exchange, error.originalError ?? error);
    return code;
  }
  if (isGraphQLRequestCode(code)) return code;
  recordFailure(exchange, error.originalError ?? error);
  return 'INTERNAL_ERROR';
}
