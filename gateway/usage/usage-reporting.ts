import type { IncomingHttpHeaders } from 'node:http';
import type { OperationDefinitionNode } from 'graphql';
import { PROJECT_VERSION } from '../../kernel/project.js';
import { type DocumentUsage, documentUsage, inputCoordinates } from './coordinates.js';
import type { UsageClient, UsageCollector } from './usage-collector.js';
import type { RequestPlugin } from '../../pipeline/pipeline.js';

const UNKNOWN: UsageClient = { name: 'unknown', version: 'unknown' };
/** A client's name or version longer than this is cut: a header is no reason to hold more memory. */
const MAX_CLIENT_LENGTH = 100;

/**
 * Usage reporting (gateway/usage/): every operation the edge runs, `/graphql`'s and the REST
 * routes' own, is counted per (operation, client, day) by the collector, which writes batches to
 * the records database. The document's coordinates are computed once, when its parsed operation is
 * first seen (documents are cached, so the same node comes back); a request adds the collector's
 * count, and a look at its variables only when the document has any. The client is
 * `graphql-client-name`/`-version` (Apollo's `apollographql-client-name`/`-version` too), "unknown"
 * without; a REST route counts as `rest-facade:<facade>`. Subgraph ports are not the edge: their
 * requests are the gateway's, counted there.
 */
export function usageReporting(collector: UsageCollector): RequestPlugin {
  const documents = new WeakMap<OperationDefinitionNode, DocumentUsage>();
  return {
    onOperation({ exchange, operation, fragments, schema, variables }) {
      if (exchange.kind === 'subgraph') return;
      let usage = documents.get(operation);
      if (!usage) documents.set(operation, (usage = documentUsage(schema, operation, fragments)));
      const client = exchange.protocol === 'rest' ? restClient(exchange.door) : clientOf(exchange.headers);
      collector.count(usage, client, inputCoordinates(usage, variables));
    },
  };
}

function clientOf(headers: IncomingHttpHeaders): UsageClient {
  const name = header(headers, 'graphql-client-name') ?? header(headers, 'apollographql-client-name');
  if (name === undefined) return UNKNOWN;
  return { name, version: header(headers, 'graphql-client-version') ?? header(headers, 'apollographql-client-version') ?? 'unknown' };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text.slice(0, MAX_CLIENT_LENGTH) : undefined;
}

const restClients = new Map<string, UsageClient>();

function restClient(facade: string): UsageClient {
  let client = restClients.get(facade);
  if (!client) restClients.set(facade, (client = { name: `rest-facade:${facade}`, version: PROJECT_VERSION }));
  return client;
}
