import { EventEmitter, once } from 'node:events';
import { type IncomingHttpHeaders, createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, pipeline } from 'node:stream';
import { stopAtScopeEnd } from './cleanup.js';

export interface HostedFile {
  status?: number;
  body?: string;
  contentType?: string;
  /** Answer after this many milliseconds (for timeouts). */
  delayMs?: number;
  /** Redirect to this URL instead of answering. */
  redirect?: string;
  /**
   * A body written chunk by chunk as the client reads it, never held whole: endless, or as long as
   * the Content-Length it declares (for size limits).
   */
  stream?: { contentLength?: number };
  /** Sent as `ETag`; a request whose `If-None-Match` names it is answered 304 without a body. */
  etag?: string;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/**
 * A real HTTP server standing in for an artifact or catalog host we do not own. Files can be
 * changed while it runs; unknown paths answer 404. It counts requests per path, keeps the headers
 * of the last one, and notes the paths whose answer the client stopped reading (`cut`).
 */
export class ArtifactHost {
  readonly files = new Map<string, HostedFile>();
  readonly hits = new Map<string, number>();
  readonly headers = new Map<string, IncomingHttpHeaders>();
  readonly cut = new Set<string>();
  private readonly finished = new EventEmitter();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      this.headers.set(path, req.headers);
      res.once('finish', () => this.finished.emit(path));
      res.once('close', () => {
        if (!res.writableFinished) this.cut.add(path);
      });
      const file = this.files.get(path);
      const answer = () => {
        if (!file) return res.writeHead(404).end('not found');
        if (file.redirect) return res.writeHead(302, { location: file.redirect }).end();
        const headers = { 'content-type': file.contentType ?? 'application/octet-stream', ...(file.etag ? { etag: file.etag } : {}) };
        if (file.etag && req.headers['if-none-match'] === file.etag) return res.writeHead(304, headers).end();
        if (file.stream) return streamBody(res, headers, file.stream.contentLength);
        res.writeHead(file.status ?? 200, headers).end(file.body ?? '');
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

  /** Resolves once an answer to `path` has been written out whole (call it before the request). */
  async served(path: string): Promise<void> {
    await once(this.finished, path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Written as fast as the client reads: up to the declared length, endless without one, until the client goes. */
function streamBody(res: ServerResponse, headers: Record<string, string>, contentLength?: number): void {
  res.writeHead(200, contentLength === undefined ? headers : { ...headers, 'content-length': String(contentLength) });
  pipeline(Readable.from(chunks(contentLength ?? Infinity)), res, () => undefined);
}

function* chunks(length: number): Generator<Buffer> {
  for (let left = length; left > 0; left -= CHUNK.length) yield left < CHUNK.length ? CHUNK.subarray(0, left) : CHUNK;
}
