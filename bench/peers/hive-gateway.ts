import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime } from '@graphql-hive/gateway';

/**
 * Hive Gateway (the peer of `gateway.*` figures) in its own process: the runtime of
 * `@graphql-hive/gateway` with its default JavaScript query planner, on our committed
 * `gateway/supergraph.graphql` (SUPERGRAPH_PATH; this package imports nothing of the project, whose
 * code would count in Hive's RSS) with the subgraph URLs replaced by the ones given
 * (MODELS_SUBGRAPH_URL, INDICATORS_SUBGRAPH_URL, IMPACT_SUBGRAPH_URL: the same subgraph processes
 * as our distributed gateway). No plugins, logging off, landing page and GraphiQL off, otherwise
 * its defaults (identical subgraph queries in flight share one request, as ours do).
 * Prints `{"ports":{"gateway":<port>}}` once listening.
 */
async function main(): Promise<void> {
  let supergraph = await readFile(required('SUPERGRAPH_PATH'), 'utf8');
  for (const name of ['models', 'indicators', 'impact']) {
    const url = required(`${name.toUpperCase()}_SUBGRAPH_URL`);
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

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

await main();
