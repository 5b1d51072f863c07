/** The fetch signature the gateway's RemoteGraphQLDataSource calls. */
export type Fetcher = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<Response>;

/**
 * Identical subgraph *queries* in flight at the same moment share one HTTP request, as Hive
 * Gateway's HTTP executor and Apollo Router (`deduplicate_query`) do: same subgraph URL, same body
 * (operation text, variables, operation name) and the same headers but `x-request-id` (so the same
 * forwarded credentials: callers who differ in any credential never share). Mutations, and any body
 * that is not a query, always go out on their own.
 *
 * What is shared is the answer's bytes: each caller gets its own Response and parses its own copy,
 * because the gateway merges subgraph data into its result tree and must not share objects between
 * requests. The shared request carries the first caller's `x-request-id`.
 *
 * Under a burst of identical queries (the `gateway.*` bench: 20 clients sending the same query)
 * the subgraphs answer once per burst instead of once per client (bench/PROFILE.md).
 */
export function inflightDeduplicating(fetcher: Fetcher): Fetcher {
  const inflight = new Map<string, Promise<{ status: number; statusText: string; headers: Headers; body: ArrayBuffer }>>();
  return async (url, init) => {
    if (!isQueryBody(init.body)) return fetcher(url, init);
    const key = `${url}\n${headersKey(init.headers ?? {})}\n${init.body}`;
    let shared = inflight.get(key);
    if (!shared) {
      shared = (async () => {
        const response = await fetcher(url, init);
        return { status: response.status, statusText: response.statusText, headers: response.headers, body: await response.arrayBuffer() };
      })();
      inflight.set(key, shared);
      // Deleted once settled, whatever the outcome: only requests in flight are shared, never answers.
      const forget = () => inflight.delete(key);
      shared.then(forget, forget);
    }
    const answer = await shared;
    return new Response(answer.body.byteLength === 0 ? null : answer.body.slice(0), { status: answer.status, statusText: answer.statusText, headers: answer.headers });
  };
}

/**
 * RemoteGraphQLDataSource sends `JSON.stringify({query, variables, operationName, …})` with the
 * query text first; the planner prints subgraph operations as `query …` or `mutation …`.
 */
function isQueryBody(body: string | undefined): boolean {
  return typeof body === 'string' && (body.startsWith('{"query":"query ') || body.startsWith('{"query":"query(') || body.startsWith('{"query":"{'));
}

function headersKey(headers: Record<string, string>): string {
  return JSON.stringify(
    Object.entries(headers)
      .filter(([name]) => name.toLowerCase() !== 'x-request-id')
      .map(([name, value]) => [name.toLowerCase(), value])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)),
  );
}
