import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

export interface BareRequest {
  method: string;
  path: string;
  /** The parsed JSON body of a POST; undefined otherwise. */
  body: unknown;
}

/**
 * The leanest direct path: a bare Node HTTP listener that reads the JSON body, calls the domain,
 * and answers JSON with a Content-Length. No GraphQL, no router, no express: whatever the facade
 * path costs beyond this is the federation's overhead (reported, `*_vs_node`; the targets are
 * against `bareExpressServer`, the "bare route").
 */
export async function bareJsonServer(answer: (request: BareRequest) => unknown): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const body = req.method === 'POST' ? JSON.parse((await readBody(req)).toString('utf8')) : undefined;
        const text = JSON.stringify(await answer({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]!, body }));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }).end(text);
      } catch (error) {
        const text = JSON.stringify({ error: (error as Error).message });
        res.writeHead(500, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }).end(text);
      }
    })();
  });
  await listening(server.listen(0, '127.0.0.1'));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listening(server: Server): Promise<void> {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
}

/**
 * The direct path of the targets (issue 7, "a bare route that calls the domain code directly"; its
 * reference prototype was such an express route): express with `express.json()`, one handler
 * calling the domain, `res.json()` out, express's defaults otherwise. No GraphQL anywhere.
 */
export async function bareExpressServer(answer: (request: BareRequest) => unknown): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.use(async (req, res) => {
    try {
      res.json(await answer({ method: req.method, path: req.path, body: req.method === 'POST' ? req.body : undefined }));
    } catch (error) {
      res.status(500).json({ error: (error as Error).message });
    }
  });
  const server = app.listen(0, '127.0.0.1');
  await listening(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
