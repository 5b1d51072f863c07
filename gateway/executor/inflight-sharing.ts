import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { SubgraphRequest, SubgraphResponse } from '../../pipeline/pipeline.js';
import { type SubgraphClient, isQuery } from './subgraph-client.js';

interface SharedFetch {
  waiters: number;
  /** Until the fetch settles: every caller has taken it by then, and no one finds the entry after. */
  answer: Promise<{ response: SubgraphResponse; text: string | null }> | undefined;
}

/**
 * Identical subgraph *queries* in flight at the same moment share one fetch, in this process or over
 * HTTP, as Hive Gateway and Apollo Router (`deduplicate_query`) do: same operation text, operation
 * name and variables, for the same caller (the same authenticated identity and the same forwarded
 * credentials; a caller who is not authenticated never shares, so that a failure stays the caller's
 * own). Mutations always go on their own.
 *
 * Each caller gets its own copy of the answer, because the gateway merges fetched data into its
 * result tree in place: the first caller the objects fetched, the others a parse of one
 * serialisation, made when the fetch settles and before any caller resumes. The fetch runs with the
 * first caller's context (its request id in logs and on the wire).
 */
export class InflightSharing implements SubgraphClient {
  private readonly inflight = new Map<string, SharedFetch>();

  constructor(private readonly client: SubgraphClient) {}

  async fetch(request: SubgraphRequest, context: RequestContext): Promise<SubgraphResponse> {
    const key = await sharingKey(request, context);
    if (key === null) return this.client.fetch(request, context);
    const running = this.inflight.get(key);
    if (running) {
      running.waiters += 1;
      return JSON.parse((await running.answer!).text!) as SubgraphResponse;
    }
    const shared: SharedFetch = { waiters: 1, answer: undefined };
    const answer = this.client.fetch(request, context).then(
      (response) => {
        this.forget(key, shared);
        return { response, text: shared.waiters > 1 ? JSON.stringify(response) : null };
      },
      (error: unknown) => {
        this.forget(key, shared);
        throw error;
      },
    );
    shared.answer = answer;
    this.inflight.set(key, shared);
    return (await answer).response;
  }

  /**
   * Why the entry lets go of its answer: a Map copies its entries into a new table as it grows and
   * shrinks, and a discarded table that had reached the old generation still points at them until
   * the next full collection. Through the entry it would keep the whole subgraph answer alive, so
   * every young collection would promote answers long gone (bench/PROFILE.md, "Requests that die
   * young").
   */
  private forget(key: string, shared: SharedFetch): void {
    this.inflight.delete(key);
    shared.answer = undefined;
  }
}

/** Null when the fetch must go on its own: not a query, or a caller without an identity. */
async function sharingKey(request: SubgraphRequest, context: RequestContext): Promise<string | null> {
  if (!isQuery(request)) return null;
  const { query, operationName, variables } = request;
  let identity;
  try {
    identity = await context.identity();
  } catch {
    return null;
  }
  return JSON.stringify([query, operationName ?? null, variables, identity, context.credentials]);
}
