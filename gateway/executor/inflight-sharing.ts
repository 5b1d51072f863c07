import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { SubgraphRequest, SubgraphResponse } from '../../pipeline/pipeline.js';
import { type SubgraphClient, isQuery } from './subgraph-client.js';
import type { RawSubtrees } from './passthrough.js';
import { deepFreeze, jsonCopy } from '../../kernel/json.js';
import { adoptReportedBreach, rememberJsonBytes } from '../../kernel/request-budget.js';
import { RenewedMap } from '../../kernel/renewed-map.js';

interface SharedFetch {
  waiters: number;
  /** Until the fetch settles: every caller has taken it by then, and no one finds the entry after. */
  answer: Promise<SharedAnswer> | undefined;
}

/** What every caller is handed: the answer, frozen when more than one shares it, and its JSON bytes then. */
interface SharedAnswer {
  response: SubgraphResponse;
  bytes: number;
}

/**
 * Identical subgraph *queries* in flight at the same moment share one fetch, in this process or over
 * HTTP, as Hive Gateway and Apollo Router (`deduplicate_query`) do: same operation text, operation
 * name and variables, for the same caller (the same authenticated identity and the same forwarded
 * credentials; a caller who is not authenticated never shares, so that a failure stays the caller's
 * own). Mutations always go on their own.
 *
 * Every caller is handed the same answer, deeply frozen, as the answer cache hands its answers
 * (answer-cache.ts): what merges fetched data into a result tree or shapes it copies a frozen object
 * before it writes (kernel/json.ts `thawed`, result-shaping.ts), so each caller copies only the
 * objects its own merges write to, and a write that missed a copy throws rather than change another
 * caller's answer. A copy per caller was an eighth of the gateway's CPU on identical requests
 * (bench/PROFILE.md, issue 39). What is frozen is one copy made when the fetch settles, before any
 * caller resumes (kernel/json.ts `jsonCopy`: JSON's values only, and objects the subgraph's
 * resolvers may still hold are not frozen under them); its strings are the answer's. The callers
 * after the first each take the answer memory of its bytes before they go on (kernel/answer-memory.ts:
 * waiting in line, or SERVER_BUSY), for the answer each builds from it and writes: twenty callers of
 * a page of 900 KB payloads share one parse of its 31.5 MB serialisation (they held twenty when each
 * had a copy), and each still writes an answer of that size.
 * The fetch runs with the first caller's context (its request id in logs and on the wire).
 */
export class InflightSharing implements SubgraphClient {
  /** An entry a fetch, for as long as it runs (kernel/renewed-map.ts: why not a Map). */
  private readonly inflight = new RenewedMap<string, SharedFetch>();

  constructor(private readonly client: SubgraphClient) {}

  async fetch(request: SubgraphRequest, context: RequestContext, raw?: RawSubtrees): Promise<SubgraphResponse> {
    const key = await sharingKey(request, context, raw);
    if (key === null) return this.client.fetch(request, context, raw);
    const running = this.inflight.get(key);
    if (running) {
      running.waiters += 1;
      const { response, bytes } = await running.answer!;
      // The fetch ran within the first caller's budget: a breach of it (SERVER_BUSY, the deadline) is every caller's.
      adoptReportedBreach(response.errors, context.budget);
      if (!context.budget.breach) await context.budget.holdAnswer(bytes);
      return response;
    }
    const shared: SharedFetch = { waiters: 1, answer: undefined };
    const answer = this.client.fetch(request, context, raw).then(
      (response): SharedAnswer => {
        this.forget(key, shared);
        if (shared.waiters === 1) return { response, bytes: 0 };
        const frozen = deepFreeze(jsonCopy(response)) as SubgraphResponse;
        // Counted once and remembered: each caller's budget measures its answer, and a shared subtree is then not walked again.
        return { response: frozen, bytes: rememberJsonBytes(frozen) };
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
   * the next full collection (the RenewedMap makes that rarer, not impossible). Through the entry it
   * would keep the whole subgraph answer alive, so every young collection would promote answers long
   * gone (bench/PROFILE.md, "Requests that die young").
   */
  private forget(key: string, shared: SharedFetch): void {
    this.inflight.delete(key);
    shared.answer = undefined;
  }
}

/**
 * Null when the fetch must go on its own: not a query, or a caller without an identity. Fetches
 * share only with the same `raw` subtrees kept as text (passthrough.ts): what reads the answer
 * takes a kept subtree as it is only where it asked for it.
 */
async function sharingKey(request: SubgraphRequest, context: RequestContext, raw: RawSubtrees | undefined): Promise<string | null> {
  if (!isQuery(request)) return null;
  const { query, operationName, variables } = request;
  let identity;
  try {
    identity = await context.identity();
  } catch {
    return null;
  }
  return JSON.stringify([query, operationName ?? null, variables, identity, context.credentials, raw?.id ?? null]);
}
