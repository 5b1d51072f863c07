import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { RequestContext } from '../kernel/graphql/request-context.js';

type ProcessResult = Awaited<ReturnType<GraphQLDataSource['process']>>;

interface SharedExecution {
  waiters: number;
  answer: Promise<{ result: ProcessResult; text: string | null }>;
}

/**
 * Identical subgraph *queries* in flight at the same moment share one in-process execution, as
 * identical HTTP fetches do in distributed mode (inflight-fetch.ts), and as Hive Gateway and Apollo
 * Router do: same operation text, operation name and variables, for the same caller (the same
 * authenticated identity and the same forwarded credentials; a caller who is not authenticated
 * never shares, so that a failure stays the caller's own). Mutations always execute on their own.
 *
 * Each caller gets its own copy of the answer, because the gateway merges fetched data into its
 * result tree in place: the first caller the executed objects, the others a parse of one
 * serialisation, made when the execution settles and before any caller resumes. The execution runs
 * with the first caller's context (its request id in logs), like the first caller's `x-request-id`
 * on a shared HTTP fetch.
 */
export class InflightSharingDataSource implements GraphQLDataSource<Record<string, unknown>> {
  private readonly inflight = new Map<string, SharedExecution>();

  constructor(private readonly source: GraphQLDataSource<Record<string, unknown>>) {}

  async process(options: GraphQLDataSourceProcessOptions<Record<string, unknown>>): Promise<ProcessResult> {
    const key = await sharingKey(options);
    if (key === null) return this.source.process(options);
    const running = this.inflight.get(key);
    if (running) {
      running.waiters += 1;
      return JSON.parse((await running.answer).text!) as ProcessResult;
    }
    const shared: SharedExecution = { waiters: 1, answer: undefined as never };
    const forget = () => this.inflight.delete(key);
    shared.answer = this.source.process(options).then(
      (result) => {
        forget();
        return { result, text: shared.waiters > 1 ? JSON.stringify(result) : null };
      },
      (error: unknown) => {
        forget();
        throw error;
      },
    );
    this.inflight.set(key, shared);
    return (await shared.answer).result;
  }
}

/** Null when the request must execute on its own: not a query, or a caller without an identity. */
async function sharingKey({ request, context }: GraphQLDataSourceProcessOptions<Record<string, unknown>>): Promise<string | null> {
  const query = request.query ?? '';
  if (!/^\s*(query\b|\{)/.test(query)) return null;
  const caller = context as unknown as RequestContext;
  let identity;
  try {
    identity = await caller.identity();
  } catch {
    return null;
  }
  return JSON.stringify([query, request.operationName ?? null, request.variables ?? {}, identity, caller.credentials]);
}
