import { type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { RemoteClient } from '../../../gateway/executor/remote-client.js';
import { RequestPipeline } from '../../../pipeline/pipeline.js';
import { upstreamTimeout } from '../../../pipeline/upstream-timeout.js';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import { NO_BUDGET, requestBudget } from '../../../kernel/request-budget.js';
import { stopAtScopeEnd } from '../../support/cleanup.js';

/**
 * The gateway's HTTP client for subgraphs (distributed mode), against a real HTTP server standing in
 * for a subgraph: answers relayed, connections kept and reused, a connection closed under a request
 * handled by what the request was.
 */
interface Subgraph {
  url: string;
  /** Operation texts received, in order, and the connection each came on. */
  received: Array<{ query: string; connection: number }>;
}

/** `closeSecondRequest`: the second request on any connection is met by closing it, no answer (an idle connection closed at that instant). */
async function startSubgraph(behaviour: { closeSecondRequest?: boolean; answer?: (res: ServerResponse) => void } = {}): Promise<Subgraph> {
  const connections = new Map<Socket, { id: number; requests: number }>();
  const received: Subgraph['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const connection = connections.get(req.socket) ?? { id: connections.size + 1, requests: 0 };
      connections.set(req.socket, connection);
      connection.requests += 1;
      received.push({ query: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string }).query, connection: connection.id });
      if (behaviour.closeSecondRequest && connection.requests === 2) return void req.socket.destroy();
      if (behaviour.answer) return behaviour.answer(res);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { answer: received.length } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Connections are cut first: a stalled answer would otherwise keep close() waiting.
  stopAtScopeEnd(() => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    return closed;
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, received };
}

const context = { budget: NO_BUDGET } as unknown as RequestContext;
const client = (url: string, pipeline = new RequestPipeline([])) => new RemoteClient({ name: 'records', url }, pipeline);

test('answers are relayed, and one kept-alive connection carries request after request', async () => {
  const subgraph = await startSubgraph();
  const records = client(subgraph.url);
  for (const expected of [1, 2, 3]) expect(await records.fetch({ query: '{ answer }', variables: {} }, context)).toEqual({ data: { answer: expected } });
  expect(subgraph.received.map((r) => r.connection)).toEqual([1, 1, 1]);
});

test('a query meeting a connection the subgraph closed as idle is sent once more, on a new connection', async () => {
  const subgraph = await startSubgraph({ closeSecondRequest: true });
  const records = client(subgraph.url);
  await records.fetch({ query: 'query First { answer }', variables: {} }, context);
  expect(await records.fetch({ query: 'query Second { answer }', variables: {} }, context)).toEqual({ data: { answer: 3 } });
  expect(subgraph.received).toEqual([
    { query: 'query First { answer }', connection: 1 },
    { query: 'query Second { answer }', connection: 1 },
    { query: 'query Second { answer }', connection: 2 },
  ]);
});

test('a mutation is never sent twice: the closed connection fails the fetch, naming no address', async () => {
  const subgraph = await startSubgraph({ closeSecondRequest: true });
  const records = client(subgraph.url);
  await records.fetch({ query: '{ answer }', variables: {} }, context);
  await expect(records.fetch({ query: 'mutation Store { answer }', variables: {} }, context)).rejects.toMatchObject({
    message: 'the records subgraph could not be reached',
    extensions: { code: 'SUBGRAPH_UNAVAILABLE' },
    originalError: { message: 'the records subgraph could not be reached: ECONNRESET' },
  });
  expect(subgraph.received.filter((r) => r.query.startsWith('mutation'))).toHaveLength(1);
});

test("a subgraph's GraphQL refusal is relayed; a proxy's error page is a failed fetch whose body is never shown", async () => {
  const refusing = await startSubgraph({
    answer: (res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'no credentials', extensions: { code: 'UNAUTHORIZED' } }] })),
  });
  expect(await client(refusing.url).fetch({ query: '{ answer }', variables: {} }, context)).toEqual({ errors: [{ message: 'no credentials', extensions: { code: 'UNAUTHORIZED' } }] });
  const proxy = await startSubgraph({ answer: (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway at 10.0.0.7</h1>') });
  await expect(client(proxy.url).fetch({ query: '{ answer }', variables: {} }, context)).rejects.toMatchObject({
    message: 'the records subgraph did not answer with a GraphQL response',
    extensions: { code: 'SUBGRAPH_ERROR' },
    originalError: { message: 'the records subgraph answered HTTP 502' },
  });
});

test('a subgraph that sends its headers and then stalls fails with SUBGRAPH_TIMEOUT', async () => {
  const stalling = await startSubgraph({ answer: (res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"data":') });
  const records = client(stalling.url, new RequestPipeline([upstreamTimeout(300)]));
  await expect(records.fetch({ query: '{ answer }', variables: {} }, context)).rejects.toMatchObject({
    message: 'the records subgraph did not answer within 300 ms',
    extensions: { code: 'SUBGRAPH_TIMEOUT' },
  });
});

test("an answer past the request budget's bytes (REQUEST_MAX_RESPONSE_BYTES) is cut as it arrives: RESPONSE_TOO_LARGE, never read whole", async () => {
  const endless = await startSubgraph({
    answer: (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const write = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', write);
      };
      write();
    },
  });
  const budget = requestBudget({ maxResponseBytes: 1_000_000, maxRecordsRead: 0, maxDurationMs: 0 });
  await expect(client(endless.url).fetch({ query: '{ answer }', variables: {} }, { budget } as unknown as RequestContext)).rejects.toMatchObject({
    code: 'RESPONSE_TOO_LARGE',
    details: { limit: 1_000_000, measure: 'bytes' },
  });
  expect(budget.breach?.code).toBe('RESPONSE_TOO_LARGE');
});
