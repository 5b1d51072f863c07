import type { GraphQLDataSource } from '@apollo/gateway';
import { type RequestContext, isRequestContext } from '../../kernel/graphql/request-context.js';
import type { SubgraphRequest, SubgraphResponse } from '../../pipeline/pipeline.js';
import type { RawSubtrees } from './passthrough.js';

/** Whether the planner wrote a query (its documents start with their operation's keyword, or `{`): never a mutation. */
export function isQuery(request: SubgraphRequest): boolean {
  return /^\s*(query\b|\{)/.test(request.query);
}

/**
 * A subgraph as the gateway reaches it, in this process or over HTTP. The planned executor calls
 * clients directly; @apollo/gateway's executor through `apolloDataSource`. A failure to reach the
 * subgraph at all rejects (the executors report it as a failed fetch).
 */
export interface SubgraphClient {
  /**
   * `raw`: subtrees of the answer that may stay as the subgraph's text (passthrough.ts), for a
   * client that reads its answer as text (RemoteClient); any other parses them, or ignores it.
   */
  fetch(request: SubgraphRequest, context: RequestContext, raw?: RawSubtrees): Promise<SubgraphResponse>;
}

/** A client as @apollo/gateway's data source: the gateway's context is the RequestContext of the door that called it. */
export function apolloDataSource(client: SubgraphClient): GraphQLDataSource {
  return {
    process: ({ request, context }) => {
      if (!isRequestContext(context)) throw new Error('a subgraph fetch outside any request of this process');
      // The gateway merges into what it receives: a shared answer (answer-cache.ts) is handed over as a copy.
      return client.fetch({ query: request.query ?? '', variables: request.variables ?? {}, operationName: request.operationName }, context).then(copiedIfShared);
    },
  };
}

function copiedIfShared(response: SubgraphResponse): SubgraphResponse {
  return Object.isFrozen(response) ? structuredClone(response) : response;
}
