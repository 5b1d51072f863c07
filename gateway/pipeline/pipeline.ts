import type { IncomingMessage } from 'node:http';
import type { MeasuredOperation } from './limits/measure.js';
import type { RequestContext, RequestTrace } from '../../kernel/graphql/request-context.js';
import { NO_BUDGET } from '../../kernel/request-budget.js';
import type { SubgraphRequest, SubgraphResponse } from '../executor/subgraph-client.js';

/**
 * One request through one of the doors (a REST facade's route, `/graphql`, a subgraph's port) as the
 * request pipeline's plugins see it. The door fills it in as the request goes; plugins read it when
 * the request arrives and when it is answered.
 */
export interface Exchange extends RequestTrace {
  /** Where it came in: a facade's name (`core`, `records`, …), `graphql`, or `subgraph:<name>`. */
  readonly door: string;
  /** A REST facade's route, or a GraphQL request (`/graphql`, a subgraph port). */
  readonly protocol: 'rest' | 'graphql';
  readonly method: string;
  /** process.hrtime.bigint() when it arrived. */
  readonly startedAt: bigint;
  /** The REST route's path pattern; null for GraphQL, and for a path no route matches. */
  route: string | null;
  /** The GraphQL operation the request ran (a REST route's own operation too), once known. */
  operationName: string | null;
  /** An operation without a name as the log names it: its type and root fields (`query { records }`). */
  anonymousOperation?: string;
  /** The HTTP status answered. */
  status: number;
  /** The error codes of the answer, as the door decided them. */
  codes: string[];
}

/** The operation a request is about to run, parsed and validated (a REST route's, or a client's). */
export interface PlannedRequest extends MeasuredOperation {
  exchange: Exchange;
}

/** One fetch from the gateway to a remote subgraph, as it is about to be sent. */
export interface SubgraphFetch {
  readonly subgraph: string;
  readonly request: SubgraphRequest;
  /** The caller's context (its trace is the exchange). */
  readonly context: RequestContext;
  /** The HTTP headers to send; plugins add theirs. */
  readonly headers: Record<string, string>;
  /** Aborts the fetch, its answer's body included (the upstream timeout sets it). */
  signal?: AbortSignal;
}

/** One concern of every request, whichever door it comes in by (request id, limits, metrics, …). */
export interface RequestPlugin {
  /** The request arrived, before anything of it ran. */
  onRequest?(exchange: Exchange, request: IncomingMessage): void;
  /** Its operation is about to run: a plugin refuses it by throwing a DomainError. */
  onOperation?(request: PlannedRequest): void;
  /** A remote subgraph fetch: a plugin may set headers or the signal, and must call `send` once. */
  onSubgraphFetch?(fetch: SubgraphFetch, send: () => Promise<SubgraphResponse>): Promise<SubgraphResponse>;
  /** The answer is decided (status and codes set), as it is sent. */
  onResponse?(exchange: Exchange): void;
}

/**
 * The request concerns every door runs, in one list (server/system.ts composes it): each is a small
 * plugin in this folder, in the manner of Hive Gateway's runtime plugins, so a concern has one home
 * and sees REST and GraphQL traffic alike.
 */
export class RequestPipeline {
  private readonly fetchHooks: NonNullable<RequestPlugin['onSubgraphFetch']>[];

  constructor(private readonly plugins: readonly RequestPlugin[]) {
    this.fetchHooks = plugins.flatMap((plugin) => (plugin.onSubgraphFetch ? [plugin.onSubgraphFetch.bind(plugin)] : []));
  }

  begin(door: string, protocol: Exchange['protocol'], request: IncomingMessage): Exchange {
    const exchange: Exchange = {
      door,
      protocol,
      method: request.method ?? 'GET',
      startedAt: process.hrtime.bigint(),
      requestId: '',
      route: null,
      operationName: null,
      status: 0,
      codes: [],
      failures: [],
      budget: NO_BUDGET,
    };
    for (const plugin of this.plugins) plugin.onRequest?.(exchange, request);
    return exchange;
  }

  operation(request: PlannedRequest): void {
    for (const plugin of this.plugins) plugin.onOperation?.(request);
  }

  /** Sends a subgraph fetch through every plugin's hook, the first plugin outermost. */
  fetch(fetch: SubgraphFetch, send: () => Promise<SubgraphResponse>): Promise<SubgraphResponse> {
    const through = (index: number): Promise<SubgraphResponse> => (index < this.fetchHooks.length ? this.fetchHooks[index]!(fetch, () => through(index + 1)) : send());
    return through(0);
  }

  end(exchange: Exchange): void {
    for (const plugin of this.plugins) plugin.onResponse?.(exchange);
  }
}
