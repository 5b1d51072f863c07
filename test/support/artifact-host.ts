import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopAtScopeEnd } from './cleanup.js';

export interface HostedFile {
  status?: number;
  body?: string;
  contentType?: string;
  /** Answer after this many milliseconds (for timeouts). */
  delayMs?: number;
  /** Redirect to this URL instead of answering. */
  redirect?: string;
}

/**
 * A real HTTP server standing in for an artifact or catalog host we do not own. Files can be
 * changed while it runs; unknown paths answer 404. It counts requests per path.
 */
export class ArtifactHost {
  readonly files = new Map<string, HostedFile>();
  readonly hits = new Map<string, number>();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const file = this.files.get(path);
      const answer = () => {
        if (!file) return res.writeHead(404).end('not found');
        if (file.redirect) return res.writeHead(302, { location: file.redirect }).end();
        res.writeHead(file.status ?? 200, { 'content-type': file.contentType ?? 'application/octet-stream' }).end(file.body ?? '');
      };
      // Unref'd: a delay longer than the test must not keep jest running once the host stops.
      if (file?.delayMs) setTimeout(answer, file.delayMs).unref();
      else answer();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    stopAtScopeEnd(() => this.stop());
    return this;
  }

  serve(path: string, file: HostedFile | string): void {
    this.files.set(path, typeof file === 'string' ? { body: file } : file);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
