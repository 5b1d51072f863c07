import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { graphql, parse } from 'graphql';
import { composeSubgraphs } from '../../gateway/compose.js';
import { type GatewayOptions, startGateway } from '../../gateway/gateway.js';
import { graphqlEndpoint } from '../../gateway/graphql-endpoint.js';
import { InProcessClient } from '../../gateway/executor/in-process-client.js';
import { RemoteClient } from '../../gateway/executor/remote-client.js';
import type { SubgraphClient } from '../../gateway/executor/subgraph-client.js';
import { upstreamTimeout } from '../../pipeline/upstream-timeout.js';
import { operationLimits } from '../../pipeline/operation-limits.js';
import { documentSizeLimits } from '../../pipeline/document-size-limits.js';
import { pino } from 'pino';
import { DEPLOYED_PLANNER } from '../support/planners.js';
import { RequestPipeline } from '../../pipeline/pipeline.js';
import { requestId } from '../../pipeline/request-id.js';
import { Authorizer } from '../../kernel/identity/authorization.js';
import { readAuthConfig } from '../../kernel/identity/auth-config.js';
import { createAuthenticator } from '../../kernel/identity/create-authenticator.js';
import { call } from '../support/system.js';
import { stopAtScopeEnd } from '../support/cleanup.js';

export const FEDERATION_LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides"])';

export interface TinySubgraph {
  name: string;
  /** SDL without the federation `@link`, which is added; or with its own `extend schema @link(...)` first (other imports). */
  typeDefs: string;
  resolvers: GraphQLResolverMap<unknown>;
}

export interface TinyFederation {
  /** POST /graphql on our endpoint; the answer's JSON body and status. */
  query(query: string, variables?: Record<string, unknown>, operationName?: string): Promise<{ status: number; json: any; text: string }>;
  /** Operations each subgraph received (one `_entities` batch counts once). */
  calls: Record<string, number>;
  stop(): Promise<void>;
}

function withFederationLink(typeDefs: string): string {
  return /^\s*extend schema\b/.test(typeDefs) ? typeDefs : `${FEDERATION_LINK}\n${typeDefs}`;
}

/**
 * A tiny subgraph served over HTTP (`POST /graphql`, graphql-js on its subgraph schema), as a
 * subgraph process serves one: its URL, for `remoteSubgraph`; stopped at the scope's end. `write`:
 * the answer's text (JSON.stringify's, as a subgraph process writes it, unless a test says otherwise).
 */
export async function serveSubgraph(subgraph: TinySubgraph, write: (result: object) => string = (result) => JSON.stringify(result)): Promise<string> {
  const schema = buildSubgraphSchema({ typeDefs: parse(withFederationLink(subgraph.typeDefs)), resolvers: subgraph.resolvers });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const { query, variables, operationName } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string; variables?: Record<string, unknown>; operationName?: string };
      const result = await graphql({ schema, source: query, variableValues: variables, operationName });
      res.writeHead(200, { 'content-type': 'application/json' }).end(write(result));
    });
  });
  await listening(server.listen(0, '127.0.0.1'));
  stopAtScopeEnd(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
}

/** A subgraph of a tiny federation reached over HTTP, as distributed mode reaches ours. */
export function remoteSubgraph(url: string): SubgraphClient {
  return new RemoteClient({ name: 'remote', url }, new RequestPipeline([requestId(), upstreamTimeout(30_000)]));
}

/**
 * A small self-contained supergraph behind our own wiring: the subgraphs are composed with our
 * `composeSubgraphs`, served by `InProcessClient`s (or the clients given, e.g. a remote one that is
 * down), planned by our `startGateway` (on the planner a deployment here runs, unless `modes` says
 * otherwise; `{ stockExecutorOnly: true }` is @apollo/gateway's answer, the reference), and answered by our
 * `graphqlEndpoint` with its error masking and limits, as a client sees it.
 */
export async function startTinyFederation(
  subgraphs: TinySubgraph[],
  /** A client in place of a subgraph's InProcessClient, or one made around it. */
  replaced: Record<string, SubgraphClient | ((inProcess: SubgraphClient) => SubgraphClient)> = {},
  modes: Partial<Pick<GatewayOptions, 'stockExecutorOnly' | 'planner'>> = {},
): Promise<TinyFederation> {
  const schemas = subgraphs.map((s) => ({ name: s.name, schema: buildSubgraphSchema({ typeDefs: parse(withFederationLink(s.typeDefs)), resolvers: s.resolvers }) }));
  const { supergraphSdl, errors } = composeSubgraphs(schemas.map(({ name, schema }) => ({ name, sdl: printSubgraphSchema(schema) })));
  if (!supergraphSdl) throw new Error(`tiny supergraph does not compose: ${errors.map((e) => e.message).join('; ')}`);
  const calls: Record<string, number> = {};
  const clients: Record<string, SubgraphClient> = {};
  for (const { name, schema } of schemas) {
    const replacement = replaced[name];
    const client = typeof replacement === 'function' ? replacement(new InProcessClient(schema)) : (replacement ?? new InProcessClient(schema));
    calls[name] = 0;
    clients[name] = {
      fetch(request, context, raw) {
        calls[name]! += 1;
        return client.fetch(request, context, raw);
      },
    };
  }
  const gateway = await startGateway(supergraphSdl, clients, { planner: DEPLOYED_PLANNER, ...modes, logger: pino({ level: 'silent' }) });
  const endpoint = await graphqlEndpoint({
    gateway,
    supergraphSdl,
    access: noAuthentication(),
    introspection: false,
    body: { maxBytes: 65536, maxDepth: 64 },
    pipeline: new RequestPipeline([
      requestId(),
      documentSizeLimits({ maxTokens: 3000, maxFields: 500, maxLiteralDepth: 10, maxLiteralValues: 1000 }),
      operationLimits({ maxDepth: 10, maxAliases: 15, maxCost: 50000, maxSelections: 2000 }),
    ]),
  });
  const server = await listening(endpoint.app.listen(0, '127.0.0.1'));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    query: (query, variables, operationName) => call(base, 'POST', '/graphql', { body: { query, variables, operationName } }),
    calls,
    stop: stopAtScopeEnd(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await endpoint.server.stop();
      await gateway.stop();
    }),
  };
}

function noAuthentication() {
  const config = readAuthConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true' });
  return { authenticator: createAuthenticator(config, { logger: { warn: () => undefined } }), authorizer: new Authorizer() };
}

function listening(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => server.once('listening', () => resolve(server)).once('error', reject));
}
