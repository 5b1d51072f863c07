/**
 * A request the client got wrong in GraphQL's own terms (a document that does not validate, no
 * runnable operation, a document not trusted): 400, each error with its GraphQL request code. A
 * module of its own: what refuses such a request (the trusted documents' guard, read with the
 * configuration) needs nothing else of the pipeline.
 */
export class RequestMistake extends Error {
  constructor(readonly errors: ReadonlyArray<{ message: string; code: string }>) {
    super(errors[0]?.message ?? 'bad GraphQL request');
  }
}
