import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopAtScopeEnd } from '../../support/cleanup.js';
import { DomainError } from '../../../kernel/errors.js';
import type { ErrorCode } from '../../../kernel/errors.js';
import type { IndicatorConfig } from '../../../subgraphs/indicators/domain/indicator-config.js';

/** Real HTTP servers on 127.0.0.1 with random ports: the mock core and the mock artifact host. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer only after this long (the timer is unref'd so a test run never waits for it). */
  delayMs?: number;
}

export type Handler = (request: RecordedRequest) => Reply;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaceable per test. */
  handler: Handler;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const state = { handler };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const reply = state.handler(recorded);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get handler() {
      return state.handler;
    },
    set handler(next: Handler) {
      state.handler = next;
    },
    close: stopAtScopeEnd(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  };
}

/** A URL on which nothing listens: a port that was just free. */
export async function refusedUrl(): Promise<string> {
  const server = await startServer(() => ({ status: 200 }));
  await server.close();
  return server.url;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

export function passedReport(): Record<string, unknown> {
  return {
    passed: true,
    results: [
      { kind: 'JsonSchema', passed: true, violations: [] },
      { kind: 'Shacl', passed: true, violations: [] },
      { kind: 'Owl', passed: true, violations: [] },
    ],
  };
}

export function testConfig(overrides: Partial<IndicatorConfig>): IndicatorConfig {
  return {
    coreBaseUrl: 'http://127.0.0.1:1',
    artifactBaseUrlTemplate: 'http://127.0.0.1:1/{version}/',
    httpTimeoutSecs: 15,
    skipValidation: false,
    artifactFreshnessSecs: 60,
    coreServiceName: 'hex-core-service',
    bindAddress: '0.0.0.0',
    port: 8081,
    ...overrides,
  };
}

/** Awaits a rejection and returns it as a DomainError with the expected code. */
export async function domainError(promise: Promise<unknown>, code: ErrorCode): Promise<DomainError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe(code);
  return error as DomainError;
}

/** Deep equality with numbers compared within a tolerance. */
export function expectClose(actual: unknown, expected: unknown, tolerance = 1e-12, path = '$'): void {
  if (typeof expected === 'number') {
    expect({ path, value: typeof actual }).toEqual({ path, value: 'number' });
    if (Math.abs((actual as number) - expected) > tolerance) {
      throw new Error(`${path}: ${String(actual)} differs from ${expected} by more than ${tolerance}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    expect({ path, length: (actual as unknown[]).length }).toEqual({ path, length: expected.length });
    expected.forEach((item, i) => expectClose((actual as unknown[])[i], item, tolerance, `${path}[${i}]`));
    return;
  }
  if (typeof expected === 'object' && expected !== null) {
    expect({ path, keys: Object.keys(actual as object).sort() }).toEqual({ path, keys: Object.keys(expected).sort() });
    for (const [key, value] of Object.entries(expected)) {
      expectClose((actual as Record<string, unknown>)[key], value, tolerance, `${path}.${key}`);
    }
    return;
  }
  expect({ path, value: actual }).toEqual({ path, value: expected });
}
