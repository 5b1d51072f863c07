import type { ApolloServerPlugin } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import { DomainError } from '../kernel/errors.js';
import { refusalError } from '../kernel/graphql/budgeted-answer.js';
import type { RequestContext } from '../kernel/graphql/request-context.js';
import { operationStep, resultStep } from '../pipeline/graphql-run.js';
import { type Exchange, type RequestPipeline, refused } from '../pipeline/pipeline.js';
import { LARGE_ANSWER_BYTES } from '../kernel/answer-memory.js';
import { answerUtf8 } from '../kernel/http/answer-text.js';
import type { Utf8Parts } from '../kernel/raw-json.js';

/**
 * The runner's steps (pipeline/graphql-run.ts) from Apollo Server's hooks, for `/graphql`: Apollo
 * Server parses and validates (its document store, with automatic persisted queries), then the
 * operation step runs once it has resolved the operation (no runnable one is refused, the operation
 * concerns see it: the limits, usage), and the result step when the answer has errors. The exchange
 * is the trace of the request's context (graphql-endpoint.ts makes it inside the pipeline's `run`).
 */
export function apolloDoorPlugin(pipeline: RequestPipeline): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart({ contextValue }) {
      const exchange = contextValue.trace as Exchange;
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          try {
            operationStep(pipeline, exchange, { document, operation, requestedName: request.operationName, schema, variables: request.variables ?? {} });
          } catch (error) {
            // A hook that throws this ends the request with the code's status.
            throw error instanceof DomainError ? refusalError(error) : error;
          }
        },
        async didEncounterErrors({ errors }) {
          resultStep(exchange, errors);
        },
        async willSendResponse({ response }) {
          const data = response.body.kind === 'single' ? response.body.singleResult.data : undefined;
          if (data && Object.isExtensible(data)) (data as Answering)[EXCHANGE] = exchange;
        },
      };
    },
  };
}

/**
 * The exchange of an answer Apollo Server is about to write, on its `data` (what `stringifyAnswer`
 * is handed again), and the answer kept for the pipeline, on the exchange: keys JSON never writes.
 * Not WeakMaps: a long-lived table holding each request's objects made V8's young collections
 * promote them (the exchange, ~1.3 KB a request), and the full collections that followed set the
 * workers' tail (bench/PROFILE.md, "Twelfth steps").
 */
const EXCHANGE = Symbol('exchange');
const KEPT_ANSWER = Symbol('kept answer');
type Answering = { [EXCHANGE]?: Exchange };
/**
 * An answer not handed to Apollo Server as text: too large for one string of it (the pipeline
 * writes it in pieces, pipeline.ts), or holding subgraphs' bytes (written as its parts).
 */
type Keeping = Exchange & { [KEPT_ANSWER]?: FormattedExecutionResult | Utf8Parts };

/**
 * Apollo Server's `stringifyResult`: JSON (kernel/http/answer-text.ts: the parts shared with other
 * requests written once), and when an answer cannot be written (longer than a string can be: an
 * oversized answer) the failure recorded on its exchange before Apollo Server answers 500, so that
 * the log line names its cause; it came out with no code and no cause. An answer its budget
 * measured past LARGE_ANSWER_BYTES (a megabyte) is not written here: it is kept for `keptAnswer`,
 * and Apollo Server is handed an empty text in its place. So is one written as bytes (subtrees of
 * the subgraphs' answers kept as they came, gateway/executor/passthrough.ts): its text is never
 * made, neither decoded from them nor encoded again for the socket.
 */
export function stringifyAnswer(result: FormattedExecutionResult): string {
  const exchange: Keeping | undefined = (result.data as Answering | null | undefined)?.[EXCHANGE];
  if (exchange && exchange.budget.answerBytes > LARGE_ANSWER_BYTES) {
    exchange[KEPT_ANSWER] = result;
    return '';
  }
  let answer: string | Utf8Parts;
  try {
    answer = answerUtf8(result, '\n');
  } catch (error) {
    if (exchange) refused(exchange, error);
    throw error;
  }
  if (typeof answer === 'string') return answer;
  if (!exchange) return answer.text();
  exchange[KEPT_ANSWER] = answer;
  return '';
}

/** The answer `stringifyAnswer` kept for the pipeline to write (its UTF-8 parts, or its objects in pieces), if it kept one. */
export function keptAnswer(exchange: Keeping): FormattedExecutionResult | Utf8Parts | undefined {
  const answer = exchange[KEPT_ANSWER];
  exchange[KEPT_ANSWER] = undefined;
  return answer;
}
