import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { SubgraphRequest, SubgraphResponse } from '../../pipeline/pipeline.js';
import { type SubgraphClient, isQuery } from './subgraph-client.js';
import { jsonCopy } from '../../kernel/json.js';
import { adoptReportedBreach, jsonBytes } from '../../kernel/request-budget.js';

interface SharedFetch {
  waiters: number;
  /** Until the fetch settles: every caller has taken it by then, and no one finds the entry after. */
  answer: Promise<SharedAnswer> | undefined;
}

/** What the callers after the first copy: the answer as fetched, which nobody writes to, and its JSON bytes. */
interface SharedAnswer {
  response: SubgraphResponse;
  untouched: SubgraphResponse | null;
  bytes: number;
}

/**
 * Identical subgraph *queries* in flight at the same moment share one fetch, in this process or over
 * HTTP, as Hive Gateway and Apollo Router (`deduplicate_query`) do: same operation text, operation
 * name and variables, for the same caller (the same authenticated identity and the same forwarded
 * credentials; a caller who is not authenticated never shares, so that a failure stays the caller's
 * own). Mutations always go on their own.
 *
 * Each caller gets its own copy of the answer, because the gateway merges fetched data into its
 * result tree in place: the first caller a copy made when the fetch settles, before any caller
 * resumes, the others each a copy of the untouched answer once the answer memory of its bytes is
 * theirs (kernel/answer-memory.ts: waiting in line, or SERVER_BUSY). Copies share the answer's
 * strings (kernel/json.ts, jsonCopy): twenty callers of a page of 900 KB payloads held twenty
 * parses of one 31.5 MB serialisation, and that serialisation, at once. The fetch runs with the
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
      const { untouched, bytes } = await running.answer!;
      // The fetch ran within the first caller's budget: a breach of it (SERVER_BUSY, the deadline) is every caller's.
      adoptReportedBreach(untouched!.errors, context.budget);
      if (!context.budget.breach) await context.budget.holdAnswer(bytes);
      return jsonCopy(untouched) as SubgraphResponse;
    }
    const shared: SharedFetch = { waiters: 1, answer: undefined };
    const answer = this.client.fetch(request, context).then(
      (response): SharedAnswer => {
        this.forget(key, shared);
        if (shared.waiters === 1) return { response, untouched: null, bytes: 0 };
        return { response: jsonCopy(response) as SubgraphResponse, untouched: response, bytes: jsonBytes(response) };
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
