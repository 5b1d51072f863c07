import { type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, GraphQLError, type GraphQLSchema, type OperationDefinitionNode, getOperationAST } from 'graphql';
import type { DocumentCache } from '../kernel/graphql/document-cache.js';
import { breachAnswer } from '../kernel/graphql/budgeted-answer.js';
import type { RequestBudget } from '../kernel/request-budget.js';
import { fragmentsOf } from './limits/measure.js';
import { mistakeOf, named, record, runnableOperation } from './graphql-door.js';
import type { Exchange, PlannedRequest } from './pipeline.js';
import { RequestMistake } from './request-mistake.js';

/** A document a client wrote: its text, parsed and validated once by the door's cache. */
export interface ClientDocument {
  text: string;
  operationName?: string | null;
  documents: DocumentCache;
}

/** An operation parsed and validated once, ahead of any request (a REST route's). */
export interface PreparedDocument {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

/** One GraphQL operation as a door hands it to the runner. */
export interface GraphQLRun {
  exchange: Exchange;
  schema: GraphQLSchema;
  source: ClientDocument | PreparedDocument;
  variables: Record<string, unknown>;
  /**
   * Whether the request's concerns see the document and the operation (the size and operation limits,
   * usage, an operation's own deadline): every door's, but a subgraph port's request from the gateway,
   * which the gateway measured at the edge.
   */
  concerns: boolean;
  /** Runs the operation (a subgraph's schema, the gateway); the runner holds it to the request's budget. */
  execute(document: DocumentNode, operation: OperationDefinitionNode): Promise<ExecutionResult>;
}

/** The pipeline's hooks the steps call (pipeline.ts). */
export interface Concerns {
  document(exchange: Exchange, query: string): void;
  operation(request: PlannedRequest): void;
  /** The operation's result as the concerns leave it (the budget's breach answered alone). */
  result(exchange: Exchange, result: ExecutionResult): ExecutionResult;
}

/** What the operation step is handed: a document parsed and validated, by the runner or by Apollo Server at `/graphql`. */
export interface ResolvedDocument {
  document: DocumentNode;
  /** The operation the document and the request's operation name select, if any. */
  operation: OperationDefinitionNode | null | undefined;
  /** The operation name the request gave. */
  requestedName: string | null | undefined;
  fragments?: ReadonlyMap<string, FragmentDefinitionNode>;
  schema: GraphQLSchema;
  variables: Record<string, unknown>;
}

/**
 * The steps every GraphQL door runs an operation through, in envelop's order: the document (a
 * client's text meets the size concerns, then is parsed and validated once; a prepared one is both
 * already), the operation (`operationStep`), its execution within the request's budget
 * (`executeStep`), and its result (the result concerns, then `resultStep`). A refusal throws: a
 * RequestMistake in GraphQL's terms, or a concern's DomainError, which the door's envelope answers
 * (pipeline.ts `run`). `/graphql` runs the same steps from Apollo Server's hooks
 * (gateway/apollo-door.ts, apollo-answers.ts), which parses and validates there.
 */
export async function runGraphQL(concerns: Concerns, run: GraphQLRun): Promise<ExecutionResult> {
  const { exchange, source, schema, variables } = run;
  const resolved: ResolvedDocument =
    'text' in source ? { ...parsed(concerns, run, source), requestedName: source.operationName, schema, variables } : { ...source, requestedName: source.operation.name?.value, schema, variables };
  let operation: OperationDefinitionNode;
  try {
    operation = operationStep(run.concerns ? concerns : NO_CONCERNS, exchange, resolved);
  } catch (error) {
    throw error instanceof GraphQLError ? mistakeOf(error) : error;
  }
  const result = concerns.result(exchange, await executeStep(exchange.budget, () => run.execute(resolved.document, operation)));
  resultStep(exchange, result.errors);
  return result;
}

/**
 * The execute step: the operation runs until the request's deadline (kernel/request-budget.ts
 * `within`, which stops the work too); a run that failed past a cap of the budget is answered with
 * that breach (`breachAnswer`), any other failure is thrown on.
 */
export async function executeStep<T>(budget: RequestBudget, execute: () => Promise<T>): Promise<T | ExecutionResult> {
  try {
    return await budget.within(execute());
  } catch (error) {
    if (budget.breach) return breachAnswer(budget.breach);
    throw error;
  }
}

/**
 * The operation step: the operation to run (a GraphQLError with OPERATION_RESOLUTION_FAILURE when
 * there is none: several without a name, an unknown name, a subscription), named on the exchange,
 * then seen by the operation concerns (the limits refuse it there with a DomainError).
 */
export function operationStep(concerns: Pick<Concerns, 'operation'>, exchange: Exchange, resolved: ResolvedDocument): OperationDefinitionNode {
  // The name asked for is the log line's, should no operation answer to it.
  exchange.operationName = resolved.requestedName ?? null;
  const operation = runnableOperation(resolved.operation, resolved.requestedName);
  named(exchange, operation);
  const fragments = resolved.fragments ?? fragmentsOf(resolved.document);
  concerns.operation({ exchange, operation, fragments, schema: resolved.schema, variables: resolved.variables });
  return operation;
}

/** The result step: the answer's error codes, and the server's own failures among them, recorded on the exchange once. */
export function resultStep(exchange: Exchange, errors: readonly GraphQLError[] | undefined): void {
  if (errors?.length) record(exchange, errors);
}

const NO_CONCERNS: Pick<Concerns, 'operation'> = { operation: () => undefined };

function parsed(concerns: Concerns, run: GraphQLRun, source: ClientDocument): { document: DocumentNode; operation: OperationDefinitionNode | null | undefined } {
  if (run.concerns) concerns.document(run.exchange, source.text);
  const cached = source.documents.get(source.text);
  if ('errors' in cached) throw new RequestMistake(cached.errors.map((error) => ({ message: error.message, code: 'GRAPHQL_VALIDATION_FAILED' })));
  return { document: cached.document, operation: getOperationAST(cached.document, source.operationName) };
}
