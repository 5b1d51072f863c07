import { type ExecutionArgs, type ExecutionResult, GraphQLError, execute } from 'graphql';

/**
 * A subgraph operation executed. When it never started because the request's variables do not fit
 * the subgraph's types (a JSON scalar given a string: the gateway's schema knows scalars by name
 * only, so only the subgraph can tell), the errors are the client's: BAD_USER_INPUT, as Apollo
 * Server names them, rather than a failure the gateway would hide as INTERNAL_ERROR.
 */
export async function executeSubgraph(args: ExecutionArgs): Promise<ExecutionResult> {
  const result = await execute(args);
  if ('data' in result || !result.errors) return result;
  return { errors: result.errors.map((error) => new GraphQLError(error.message, { extensions: { ...error.extensions, code: 'BAD_USER_INPUT' } })) };
}
