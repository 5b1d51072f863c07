import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { GraphQLError } from 'graphql';
import { type RequestContext, recordFailure } from '../../kernel/graphql/request-context.js';
import type { RequestBudget } from '../../kernel/request-budget.js';
import type { RequestPipeline, SubgraphFetch, SubgraphRequest, SubgraphResponse } from '../../pipeline/pipeline.js';
import { type SubgraphClient, isQuery } from './subgraph-client.js';
import { type RawSubtrees, parseWithRawSubtrees } from './passthrough.js';

/** One POST's headers, signal and the request's budget, which its answer's bytes are charged to. */
interface OutgoingCall {
  headers: Record<string, string>;
  signal: AbortSignal | undefined;
  budget: RequestBudget;
}

/**
 * A subgraph over HTTP (distributed mode): GraphQL over HTTP with `node:http` and a keep-alive
 * agent, the request sent in one write with its Content-Length. Node's fetch cost the gateway
 * process a third of its CPU on the bench's 107 KB questionnaire (WHATWG streams, an iterable body
 * writer; bench/PROFILE.md), which a plain request does not; undici's `Pool` was no cheaper than this
 * client on that answer (bench/PROFILE.md, "After: the fetch path"). What a fetch carries besides the
 * operation (the caller's credentials, the request id, the gateway's secret) and how long it may
 * take are the request pipeline's concerns (pipeline/): every fetch goes through it. An
 * answer that is not a GraphQL response is a failed fetch, its body never shown.
 */
export class RemoteClient implements SubgraphClient {
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;
  /** The request options every POST shares, the URL taken apart once rather than on every fetch. */
  private readonly target: http.RequestOptions;

  constructor(
    private readonly subgraph: { name: string; url: string },
    private readonly pipeline: RequestPipeline,
  ) {
    const url = new URL(subgraph.url);
    this.transport = url.protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true });
    this.target = { ...urlToHttpOptions(url), method: 'POST', agent: this.agent };
  }

  fetch(request: SubgraphRequest, context: RequestContext, raw?: RawSubtrees): Promise<SubgraphResponse> {
    const fetch: SubgraphFetch = { subgraph: this.subgraph.name, request, context, headers: { 'content-type': 'application/json', accept: 'application/json' } };
    return this.pipeline.fetch(fetch, () => this.send(fetch, raw));
  }

  /** Its kept-alive connections closed: a gateway that swapped to a supergraph without this subgraph or URL no longer needs them. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * A failed fetch is SUBGRAPH_UNAVAILABLE (503: not reached, or the connection cut) or
   * SUBGRAPH_ERROR (502: an answer that is not a GraphQL response), so that clients get a status
   * that says "try later" rather than 500, and is recorded on the request's trace for its log line.
   */
  private async send(fetch: SubgraphFetch, raw: RawSubtrees | undefined): Promise<SubgraphResponse> {
    try {
      return await this.exchange(fetch, raw);
    } catch (error) {
      // An aborted fetch is the timeout's to report (upstream-timeout.ts).
      if (!fetch.signal?.aborted) recordFailure(fetch.context.trace, (error as GraphQLError).originalError ?? error);
      throw error;
    }
  }

  /** `raw`: the subtrees that may stay as text (passthrough.ts); whatever does not pass its checks, and the rest, is parsed. */
  private async exchange({ request, headers, signal, context }: SubgraphFetch, raw: RawSubtrees | undefined): Promise<SubgraphResponse> {
    const { status, contentType, bytes } = await this.post(JSON.stringify(request), { headers, signal, budget: context.budget }, !isQuery(request));
    const graphqlResponse = /^application\/(graphql-response\+)?json\b/.test(contentType);
    // A subgraph's own refusals (400, 401) are GraphQL responses, relayed as such; a proxy's 502 page is not.
    if ((status < 200 || status > 299) && !graphqlResponse) throw this.failed('SUBGRAPH_ERROR', `answered HTTP ${status}`);
    let body: unknown;
    try {
      body = (raw && parseWithRawSubtrees(bytes, raw)) ?? JSON.parse(bytes.toString('utf8'));
    } catch {
      throw this.failed('SUBGRAPH_ERROR', `answered HTTP ${status} with a body that is not JSON`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw this.failed('SUBGRAPH_ERROR', 'answered with a body that is not a GraphQL response');
    return body as SubgraphResponse;
  }

  /**
   * One POST, its answer's body read under the same signal: a subgraph that sends its headers and
   * then stalls is bounded too. A kept-alive connection that the subgraph closed as idle just as
   * this request went out (ECONNRESET before any answer) is retried once on a fresh one, as Node's
   * documentation advises. Only a query: a subgraph that died while running a mutation closes the
   * connection the same way, and the mutation must not run twice. The answer's bytes are charged to
   * the request's budget as they arrive: past its cap the connection is cut, so a huge answer costs
   * this process the cap, not the answer. The body goes as a string: Node writes it with the
   * headers in one write, with no buffer made of it first.
   */
  private post(body: string, call: OutgoingCall, retried: boolean): Promise<{ status: number; contentType: string; bytes: Buffer }> {
    const { headers, signal, budget } = call;
    return new Promise((resolve, reject) => {
      let answered = false;
      const request = this.transport.request({ ...this.target, signal, headers: { ...headers, 'content-length': String(Buffer.byteLength(body, 'utf8')) } }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        let received = 0;
        const failed = (error: unknown) => reject(this.unreachable(error));
        response.on('data', (chunk: Buffer) => {
          try {
            budget.chargeReceived(chunk.length);
          } catch (breach) {
            request.destroy();
            return reject(breach);
          }
          chunks.push(chunk);
          received += chunk.length;
        });
        response.once('error', failed);
        response.once('aborted', () => failed(new Error('the connection closed before the answer ended')));
        response.once('end', () => {
          // An answer that came in one chunk (most do, up to 64 KB) is read from it, not from a copy.
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
          chunks.length = 0;
          resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), bytes });
        });
      });
      request.once('error', (error: NodeJS.ErrnoException) => {
        const staleConnection = request.reusedSocket && !answered && error.code === 'ECONNRESET' && !retried && !signal?.aborted;
        if (staleConnection) resolve(this.post(body, call, true));
        else reject(this.unreachable(error));
      });
      request.end(body);
    });
  }

  /** A transport failure, named by its errno code only: Node's messages carry the subgraph's address. */
  private unreachable(error: unknown): GraphQLError {
    const code = (error as { code?: unknown } | null)?.code;
    const reason = typeof code === 'string' ? code : error instanceof Error ? error.name : 'network error';
    return this.failed('SUBGRAPH_UNAVAILABLE', `could not be reached: ${reason}`);
  }

  /** The client reads what failed (no errno, status or body); the log line, through `originalError`, why. */
  private failed(code: 'SUBGRAPH_UNAVAILABLE' | 'SUBGRAPH_ERROR', why: string): GraphQLError {
    const what = code === 'SUBGRAPH_UNAVAILABLE' ? 'could not be reached' : 'did not answer with a GraphQL response';
    return new GraphQLError(`the ${this.subgraph.name} subgraph ${what}`, { extensions: { code }, originalError: new Error(`the ${this.subgraph.name} subgraph ${why}`) });
  }
}
