import { RemoteGraphQLDataSource } from '@apollo/gateway';
import type { RequestContext } from '../kernel/graphql/request-context.js';
import { inflightDeduplicating } from './inflight-fetch.js';

/**
 * Calls a subgraph over HTTP (distributed mode). The caller's own credential headers are forwarded,
 * never an identity the gateway asserts: the subgraph verifies the caller exactly like the edge did.
 */
export class CredentialForwardingDataSource extends RemoteGraphQLDataSource<Record<string, unknown>> {
  constructor(url: string) {
    // Node's fetch keeps connections alive, which the default fetcher does not. Identical queries
    // in flight share one request (inflight-fetch.ts).
    super({ url, fetcher: inflightDeduplicating(fetch) as never });
  }

  override willSendRequest({ request, context }: Parameters<NonNullable<RemoteGraphQLDataSource['willSendRequest']>>[0]): void {
    const credentials = (context as unknown as Partial<RequestContext>).credentials ?? {};
    for (const [name, value] of Object.entries(credentials)) request.http?.headers.set(name, value);
    const requestId = (context as unknown as Partial<RequestContext>).requestId;
    if (requestId) request.http?.headers.set('x-request-id', requestId);
  }
}
