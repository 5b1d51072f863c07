import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { RequestPipeline, SubgraphFetch } from '../pipeline/pipeline.js';
import type { SubgraphClient, SubgraphRequest, SubgraphResponse } from './subgraph-client.js';

/**
 * A subgraph over HTTP (distributed mode): GraphQL over HTTP with Node's fetch, which keeps
 * connections alive. What a fetch carries besides the operation (the caller's credentials, the
 * request id, the gateway's secret) and how long it may take are the request pipeline's concerns
 * (gateway/pipeline/): every fetch goes through it. An answer that is not a GraphQL response is a
 * failed fetch, its body never shown.
 */
export class RemoteClient implements SubgraphClient {
  constructor(
    private readonly subgraph: { name: string; url: string },
    private readonly pipeline: RequestPipeline,
  ) {}

  fetch(request: SubgraphRequest, context: RequestContext): Promise<SubgraphResponse> {
    const fetch: SubgraphFetch = { subgraph: this.subgraph.name, request, context, headers: { 'content-type': 'application/json', accept: 'application/json' } };
    return this.pipeline.fetch(fetch, () => this.send(fetch));
  }

  private async send({ request, headers, signal }: SubgraphFetch): Promise<SubgraphResponse> {
    const response = await fetch(this.subgraph.url, { method: 'POST', headers, body: JSON.stringify(request), signal });
    // The body is read under the same signal: a subgraph that sends its headers and then stalls is bounded too.
    const text = await response.text();
    if (!response.ok && !isGraphQLResponse(response)) throw new Error(`the ${this.subgraph.name} subgraph answered HTTP ${response.status}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`the ${this.subgraph.name} subgraph answered HTTP ${response.status} with a body that is not JSON`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`the ${this.subgraph.name} subgraph answered with a body that is not a GraphQL response`);
    return body as SubgraphResponse;
  }
}

/** A subgraph's own refusals (400, 401) are GraphQL responses, relayed as such; a proxy's 502 page is not. */
function isGraphQLResponse(response: Response): boolean {
  return /^application\/(graphql-response\+)?json\b/.test(response.headers.get('content-type') ?? '');
}
