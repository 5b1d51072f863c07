import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime } from '@graphql-hive/gateway';
// Not gateway/compose.js: it loads every subgraph's code, which would count in Hive's RSS.
import { projectPath } from '../kernel/project.js';

/**
 * Hive Gateway (the peer of `gateway.*` figures) in its own process: the runtime of
 * `@graphql-hive/gateway` with its default JavaScript query planner, on our committed
 * `gateway/supergraph.graphql` with the subgraph URLs replaced by the ones given
 * (MODELS_SUBGRAPH_URL, INDICATORS_SUBGRAPH_URL, IMPACT_SUBGRAPH_URL: the same subgraph processes
 * as our distributed gateway). No plugins, logging off, landing page and GraphiQL off, otherwise
 * its defaults (identical subgraph queries in flight share one request, as ours do).
 * Prints `{"ports":{"gateway":<port>}}` once listening.
 */
async function main(): Promise<void> {
  let supergraph = await readFile(projectPath('gateway', 'supergraph.graphql'), 'utf8');
  for (const name of ['models', 'indicators', 'impact']) {
    const url = process.env[`${name.toUpperCase()}_SUBGRAPH_URL`];
    if (!url) throw new Error(`${name.toUpperCase()}_SUBGRAPH_URL is not set`);
    supergraph = supergraph.replace(`http://${name}.subgraph.invalid/graphql`, url);
  }
  // HIVE_DEDUPLICATE_INFLIGHT=false turns off its default sharing of identical subgraph queries in flight.
  const deduplicate = process.env.HIVE_DEDUPLICATE_INFLIGHT !== 'false';
  const gateway = createGatewayRuntime({
    supergraph,
    logging: false,
    landingPage: false,
    graphiql: false,
    ...(deduplicate ? {} : { transportEntries: { '*.http': { options: { deduplicateInflightRequests: false } } } }),
  });
  const server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(Number(process.env.GATEWAY_PORT ?? 0), '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ ports: { gateway: (server.address() as AddressInfo).port } })}\n`);
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void Promise.resolve(gateway.dispose()).finally(() => process.exit(0));
  });
}

await main();
