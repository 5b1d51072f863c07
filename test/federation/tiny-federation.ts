import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphQLDataSource } from '@apollo/gateway';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { parse } from 'graphql';
import { composeSubgraphs } from '../../gateway/compose.js';
import { startGateway } from '../../gateway/gateway.js';
import { graphqlEndpoint } from '../../gateway/graphql-endpoint.js';
import { InProcessDataSource } from '../../gateway/in-process-data-source.js';
import { Authorizer } from '../../kernel/identity/authorization.js';
import { readAuthConfig } from '../../kernel/identity/auth-config.js';
import { createAuthenticator } from '../../kernel/identity/create-authenticator.js';
import { call } from '../support/system.js';

export const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides"])';

export interface TinySubgraph {
  name: string;
  /** SDL without the federation `@link`, which is added. */
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

/**
 * A small self-contained supergraph behind our own wiring: the subgraphs are composed with our
 * `composeSubgraphs`, served by `InProcessDataSource`s (or the data sources given, e.g. a remote one
 * that is down), planned by our `startGateway`, and answered by our `graphqlEndpoint` with its error
 * masking and limits, as a client sees it.
 */
export async function startTinyFederation(subgraphs: TinySubgraph[], replaced: Record<string, GraphQLDataSource> = {}): Promise<TinyFederation> {
  const schemas = subgraphs.map((s) => ({ name: s.name, schema: buildSubgraphSchema({ typeDefs: parse(`${FEDERATION_LINK}\n${s.typeDefs}`), resolvers: s.resolvers }) }));
  const { supergraphSdl, errors } = composeSubgraphs(schemas.map(({ name, schema }) => ({ name, sdl: printSubgraphSchema(schema) })));
  if (!supergraphSdl) throw new Error(`tiny supergraph does not compose: ${errors.map((e) => e.message).join('; ')}`);
  const calls: Record<string, number> = {};
  const dataSources: Record<string, GraphQLDataSource> = {};
  for (const { name, schema } of schemas) {
    const source = replaced[name] ?? new InProcessDataSource(schema);
    calls[name] = 0;
    dataSources[name] = {
      process(options) {
        calls[name]! += 1;
        return source.process(options);
      },
    };
  }
  const gateway = await startGateway(supergraphSdl, dataSources);
  const endpoint = await graphqlEndpoint({
    gateway,
    supergraphSdl,
    access: noAuthentication(),
    introspection: false,
    maxRequestBytes: 65536,
    limits: { maxDepth: 10, maxAliases: 15, maxCost: 50000 },
  });
  const server = await listening(endpoint.app.listen(0, '127.0.0.1'));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    query: (query, variables, operationName) => call(base, 'POST', '/graphql', { body: { query, variables, operationName } }),
    calls,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await endpoint.server.stop();
      await gateway.stop();
    },
  };
}

function noAuthentication() {
  const config = readAuthConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true' });
  return { authenticator: createAuthenticator(config, { logger: { warn: () => undefined } }), authorizer: new Authorizer() };
}

function listening(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => server.once('listening', () => resolve(server)).once('error', reject));
}
