import { type DocumentNode, type ExecutionArgs, type ExecutionResult, GraphQLError, type GraphQLSchema, Kind, execute } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

/**
 * A subgraph operation executed: by graphql-js the first time, then compiled with graphql-jit
 * (compiledOperation below), which runs the bench's questionnaire (2,267 objects) twice as fast
 * and answers with plain objects that JSON.stringify takes its fast path on (graphql-js's
 * null-prototype objects are dictionaries to V8). Whenever the compiled operation answers nothing
 * but errors (the variables do not fit, the operation cannot run), graphql-js executes it instead,
 * so that such errors read exactly as they always have.
 *
 * When the operation never started because the request's variables do not fit the subgraph's types
 * (a JSON scalar given a string: the gateway's schema knows scalars by name only, so only the
 * subgraph can tell), the errors are the client's: BAD_USER_INPUT, as Apollo Server names them,
 * rather than a failure the gateway would hide as INTERNAL_ERROR.
 */
export async function executeSubgraph(args: ExecutionArgs & { document: DocumentNode }): Promise<ExecutionResult> {
  const compiled = compiledOperation(args.schema, args.document, args.operationName ?? undefined);
  if (compiled) {
    const result = await compiled.query(args.rootValue, args.contextValue, args.variableValues ?? {});
    if ('data' in result && result.data !== undefined) return result;
  }
  const result = await execute(args);
  if ('data' in result || !result.errors) return result;
  return { errors: result.errors.map((error) => new GraphQLError(error.message, { extensions: { ...error.extensions, code: 'BAD_USER_INPUT' } })) };
}

/**
 * Compiled operations by schema, document (the document caches keep each text's one parsed
 * document) and operation name. An operation is compiled when it runs a second time: compiling
 * costs more than one execution, and a client sending a new document with every request must not
 * make each request dearer than graphql-js alone would.
 */
const compiledOperations = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, CompiledQuery | 'seen once' | 'not compilable'>>>();

function compiledOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): CompiledQuery | null {
  // Only names the document defines are remembered: a caller repeating one document under ever new names grows nothing.
  if (operationName !== undefined && !document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName)) return null;
  let bySchema = compiledOperations.get(schema);
  if (!bySchema) compiledOperations.set(schema, (bySchema = new WeakMap()));
  let byName = bySchema.get(document);
  if (!byName) bySchema.set(document, (byName = new Map()));
  const key = operationName ?? '';
  const known = byName.get(key);
  if (known === undefined) {
    byName.set(key, 'seen once');
    return null;
  }
  if (known === 'seen once') {
    const compiled = compileQuery(schema, document, operationName);
    byName.set(key, isCompiledQuery(compiled) ? compiled : 'not compilable');
    return isCompiledQuery(compiled) ? compiled : null;
  }
  return known === 'not compilable' ? null : known;
}
