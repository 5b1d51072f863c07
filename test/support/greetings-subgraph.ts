import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { graphql, parse } from 'graphql';
import type { PublishedSubgraph } from '../../gateway/schema-registry/supergraph-versions.js';
import { stopAtScopeEnd } from './cleanup.js';

/** A subgraph another team deployed: two root fields of its own, one answering only when released. */
const SDL = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

type Query {
  "A greeting from the greetings team's subgraph."
  greeting: String!
  "The same greeting, answered once the test releases it: a slow upstream."
  slowGreeting: String!
}
`;

export const GREETING = 'hello from the greetings subgraph';

export interface GreetingsSubgraph {
  /** Its GraphQL endpoint (`/graphql`). */
  url: string;
  /** The subgraph as a version publishes it, at its routing URL. */
  published: PublishedSubgraph;
  /** `slowGreeting`s waiting for `release`. */
  waiting(): number;
  /** Answers every `slowGreeting` waiting. */
  release(): void;
  stop(): Promise<void>;
}

/**
 * The greetings subgraph: @apollo/subgraph's schema over node:http, as a team outside this project
 * would run one, on a free port of the loopback interface. Stopped at the end of the scope that
 * started it.
 */
export async function startGreetingsSubgraph(): Promise<GreetingsSubgraph> {
  const held: Array<() => void> = [];
  const schema = buildSubgraphSchema({
    typeDefs: parse(SDL),
    resolvers: {
      Query: {
        greeting: () => GREETING,
        slowGreeting: () => new Promise<string>((resolve) => held.push(() => resolve(GREETING))),
      },
    },
  });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        let body: { query?: string; variables?: Record<string, unknown>; operationName?: string } = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = {};
        }
        const result = await graphql({ schema, source: body.query ?? '', variableValues: body.variables, operationName: body.operationName });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const release = () => held.splice(0).forEach((answer) => answer());
  return {
    url,
    published: { name: 'greetings', url, sdl: SDL },
    waiting: () => held.length,
    release,
    stop: stopAtScopeEnd(async () => {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }),
  };
}
