// The gateway of this project in front of any supergraph, for the public federation gateway audit
// (docs/FEDERATION-AUDIT.md): `node scripts/federation-audit-gateway.mjs <supergraph.graphql>
// [--planner hive|apollo]` after `npm run build`. Our startGateway and /graphql endpoint (Apollo
// Server, error masking, the default document and operation limits of `npm run serve`), each
// subgraph reached over HTTP at the URL the supergraph names, as distributed mode reaches ours.
// The planner is the one `npm run serve` runs here (GATEWAY_PLANNER read as it reads it);
// `--planner apollo` runs Apollo's, the fallback, where Hive's loads too, which no setting does
// (gateway/executor/planner.ts). GATEWAY_PORT (default 4000) is where it listens, with GET /health
// answering 200 once it does. No authentication (the audit sends none).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { pino } from 'pino';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const load = (module) => import(pathToFileURL(path.join(dist, module)).href);
const { readSystemConfig } = await load('server/config.js');
const { startupWarnings } = await load('server/startup-summary.js');
const { startGateway } = await load('gateway/gateway.js');
const { graphqlEndpoint } = await load('gateway/graphql-endpoint.js');
const { RemoteClient } = await load('gateway/executor/remote-client.js');
const { RequestPipeline } = await load('pipeline/pipeline.js');
const { requestId } = await load('pipeline/request-id.js');
const { operationLimits } = await load('pipeline/operation-limits.js');
const { documentSizeLimits } = await load('pipeline/document-size-limits.js');
const { upstreamTimeout } = await load('pipeline/upstream-timeout.js');
const { Authorizer } = await load('kernel/identity/authorization.js');
const { createAuthenticator } = await load('kernel/identity/create-authenticator.js');

const { values, positionals } = parseArgs({ allowPositionals: true, options: { planner: { type: 'string' } } });
const [supergraphPath] = positionals;
if (!supergraphPath || ![undefined, 'hive', 'apollo'].includes(values.planner)) {
  throw new Error('usage: node scripts/federation-audit-gateway.mjs <supergraph.graphql> [--planner hive|apollo]');
}
const supergraphSdl = await readFile(supergraphPath, 'utf8');
// The project's defaults for everything else (the three subgraph URLs of its own graph are not used here).
const unused = 'http://unused.invalid/graphql';
const config = readSystemConfig({
  ...process.env,
  PROCESS_ROLE: 'gateway',
  MODELS_SUBGRAPH_URL: unused,
  INDICATORS_SUBGRAPH_URL: unused,
  IMPACT_SUBGRAPH_URL: unused,
  AUTH_MODE: 'none',
  AUTH_ALLOW_INSECURE_NONE: 'true',
  USAGE_REPORTING: 'false',
  GATEWAY_SUBGRAPH_SECRET: 'the audit subgraphs read no secret',
});
const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' });
// As `npm run serve` warns: Hive's planner not loading here, a retired setting (GATEWAY_PLANNER=apollo).
startupWarnings(config, logger);

const pipeline = new RequestPipeline([requestId(), documentSizeLimits(config.graphqlLimits), operationLimits(config.graphqlLimits), upstreamTimeout(config.process.subgraphTimeoutMs)]);
const subgraphs = {};
for (const [, name, url] of supergraphSdl.matchAll(/join__graph\(name: "([^"]+)", url: "([^"]+)"\)/g)) {
  subgraphs[name] = new RemoteClient({ name, url }, pipeline);
}
const planner = values.planner ?? config.gatewayPlanner.mode;
const gateway = await startGateway(supergraphSdl, subgraphs, { planner, logger });
const endpoint = await graphqlEndpoint({
  gateway,
  supergraphSdl,
  access: { authenticator: createAuthenticator(config.auth, { logger }), authorizer: new Authorizer(config.auth.policy) },
  introspection: config.graphqlIntrospection,
  body: { maxBytes: config.http.maxRequestBytes, maxDepth: config.http.maxJsonDepth },
  pipeline,
});
const app = express();
app.get('/health', (_request, response) => void response.status(200).send('OK'));
app.use(endpoint.app);
const port = Number(process.env.GATEWAY_PORT ?? 4000);
const server = app.listen(port, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', port, planner }));
});
const stop = () => {
  server.closeAllConnections();
  server.close();
  void endpoint.server
    .stop()
    .then(() => gateway.stop())
    .finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
