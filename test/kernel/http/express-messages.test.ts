import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { expressMessages, expressMessagesFor } from '../../../kernel/http/express-messages.js';
import { httpServer } from '../../../kernel/http/http-server.js';

const LIMITS = { headersTimeoutMs: 5000, requestTimeoutMs: 5000, keepAliveTimeoutMs: 5000, maxConnections: 100, maxConnectionsPerClient: 100, proxyAddresses: [] };
const refuse = () => ({ status: 400, body: { error: 'refused' } });

describe('expressMessages: requests born with the express app’s own prototypes', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  async function serve(app: express.Express, listener: Parameters<typeof httpServer>[0], messages = expressMessages(app)): Promise<string> {
    server = httpServer(listener, LIMITS, refuse, { messages });
    await new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve(undefined)));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  test('express finds its prototypes already in place, and its request and answer helpers work', async () => {
    const app = express();
    app.get('/things', (req, res) => {
      res.status(201).json({ sameApp: req.app === app && res.app === app, host: req.get('host') ?? null, a: req.query.a ?? null });
    });
    const bornWithAppPrototypes: boolean[] = [];
    const base = await serve(app, (req, res) => {
      bornWithAppPrototypes.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
      app(req, res);
    });
    const answer = await fetch(`${base}/things?a=1`);
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ sameApp: true, host: base.slice('http://'.length), a: '1' });
    const missing = await fetch(`${base}/nothing`);
    expect(missing.status).toBe(404);
    expect(bornWithAppPrototypes).toEqual([true, true]);
  });

  test('each app gets its own classes: two apps in one process keep their own `app`', async () => {
    const first = express();
    const second = express();
    first.get('/', (req, res) => res.json({ first: req.app === first }));
    expressMessages(second);
    const base = await serve(first, first);
    expect(await (await fetch(`${base}/`)).json()).toEqual({ first: true });
    expect(first.request).not.toBe(second.request);
  });

  test('another app takes over a server’s classes (a gateway swapping supergraphs): its requests are born with its prototypes', async () => {
    const first = express();
    const second = express();
    first.get('/', (req, res) => res.json({ app: req.app === first ? 'first' : 'other' }));
    second.get('/', (req, res) => res.json({ app: req.app === second ? 'second' : 'other', born: Object.getPrototypeOf(req) === second.request }));
    let current = first;
    const messages = expressMessages(first);
    const base = await serve(first, (req, res) => current(req, res), messages);
    expect(await (await fetch(`${base}/`)).json()).toEqual({ app: 'first' });
    expressMessagesFor(second, messages);
    current = second;
    expect(await (await fetch(`${base}/`)).json()).toEqual({ app: 'second', born: true });
  });
});
