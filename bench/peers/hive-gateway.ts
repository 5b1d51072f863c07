import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime } from '@graphql-hive/gateway';

/**
 * Hive Gateway (the peer of `gateway.*` figures) in its own process: the runtime of
 * `@graphql-hive/gateway` with its default JavaScript query planner or, with
 * HIVE_ROUTER_RUNTIME=true, with `@graphql-hive/router-runtime` (Hive Router's Rust query planner,
 * a native addon shipped in `@graphql-hive/router-query-planner`, and its executor) as its
 * `unifiedGraphHandler`, as the gateway's `--hive-router-runtime` flag does; on our committed
 * `gateway/supergraph.graphql` (SUPERGRAPH_PATH; this package imports nothing of the project, whose
 * code would count in Hive's RSS) with the subgraph URLs replaced by the ones given
 * (MODELS_SUBGRAPH_URL, INDICATORS_SUBGRAPH_URL, IMPACT_SUBGRAPH_URL: the same subgraph processes
 * as our distributed gateway, reached with our gateway's shared secret). No plugins, logging off,
 * landing page and GraphiQL off, otherwise its defaults (identical subgraph queries in flight share
 * one request, as ours do).
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
  // Imported only when asked for, so that the JavaScript-planner process does not load it (its RSS is measured).
  const routerRuntime = process.env.HIVE_ROUTER_RUNTIME === 'true' ? await import('@graphql-hive/router-runtime') : undefined;
  // GATEWAY_SUBGRAPH_SECRET: sent to the subgraphs as our gateway sends it (`x-gateway-secret`,
  // pipeline/gateway-secret.ts), so that they treat Hive's fetches as our gateway's: its
  // documents are not held again to the edge's limits (server/subgraph-server.ts), which price an
  // entity fetch's `_entities` by its representations and would refuse a large one.
  const secret = process.env.GATEWAY_SUBGRAPH_SECRET;
  const gateway = createGatewayRuntime({
    supergraph,
    ...(routerRuntime ? { unifiedGraphHandler: routerRuntime.unifiedGraphHandler } : {}),
    logging: false,
    landingPage: false,
    graphiql: false,
    transportEntries: {
      '*.http': {
        ...(secret ? { headers: [['x-gateway-secret', secret]] } : {}),
        ...(deduplicate ? {} : { options: { deduplicateInflightRequests: false } }),
      },
    },
  });
  const server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(Number(process.env.GATEWAY_PORT ?? 0), '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ ports: { gateway: (server.address() as AddressInfo).port }, runtime: routerRuntime ? 'router' : 'stitching' })}\n`);
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
