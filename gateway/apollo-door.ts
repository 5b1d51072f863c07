import type { ApolloServerPlugin } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import { DomainError } from '../kernel/errors.js';
import { refusalError } from '../kernel/graphql/budgeted-answer.js';
import type { RequestContext } from '../kernel/graphql/request-context.js';
import { named, record, runnableOperation } from '../pipeline/graphql-door.js';
import { fragmentsOf } from '../pipeline/limits/measure.js';
import type { Exchange, RequestPipeline } from '../pipeline/pipeline.js';
import { LARGE_ANSWER_BYTES } from '../kernel/answer-memory.js';

/**
 * What the request pipeline needs of Apollo Server's handling of a `/graphql` request: the plugin
 * refuses a request with no runnable operation, runs the pipeline's operation concerns (the limits,
 * usage) and records the answer's error codes on the exchange, which is the trace of the request's
 * context (graphql-endpoint.ts makes it inside the pipeline's `run`).
 */
export function apolloDoorPlugin(pipeline: RequestPipeline): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart({ contextValue }) {
      const exchange = contextValue.trace as Exchange;
      return {
        async didResolveOperation({ operationName, operation, document, schema, request }) {
          exchange.operationName = operationName;
          const runnable = runnableOperation(operation, request.operationName);
          named(exchange, runnable);
          try {
            pipeline.operation({ exchange, operation: runnable, fragments: fragmentsOf(document), schema, variables: request.variables ?? {} });
          } catch (error) {
            // A hook that throws this ends the request with the code's status.
            throw error instanceof DomainError ? refusalError(error) : error;
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
}

/** The exchange of each answer Apollo Server is about to write, by its `data` (what `stringifyAnswer` is handed again). */
const answering = new WeakMap<object, Exchange>();

/** Answers too large for one string of them, by their exchange: the pipeline writes them in pieces (pipeline.ts). */
const inPieces = new WeakMap<Exchange, FormattedExecutionResult>();

/**
 * Apollo Server's `stringifyResult`: JSON, and when an answer cannot be written (longer than a
 * string can be: an oversized answer) the failure recorded on its exchange before Apollo Server
 * answers 500, so that the log line names its cause; it came out with no code and no cause. An
 * answer its budget measured past LARGE_ANSWER_BYTES (a megabyte) is not written here: it is kept for
 * `answerInPieces`, and Apollo Server is handed an empty text in its place.
 */
export function stringifyAnswer(result: FormattedExecutionResult): string {
  const exchange = result.data ? answering.get(result.data) : undefined;
  if (exchange && exchange.budget.answerBytes > LARGE_ANSWER_BYTES) {
    inPieces.set(exchange, result);
    return '';
  }
  try {
    return `${JSON.stringify(result)}\n`;
  } catch (error) {
    if (exchange) {
      exchange.failures.push(error);
      exchange.codes = ['INTERNAL_ERROR'];
    }
    throw error;
  }
}

/** The answer `stringifyAnswer` kept for the pipeline to write in pieces, if it kept one. */
export function answerInPieces(exchange: Exchange): FormattedExecutionResult | undefined {
  const result = inPieces.get(exchange);
  inPieces.delete(exchange);
  return result;
}
