import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createLogger } from '../../kernel/logger.js';
import { readSystemConfig } from '../../server/config.js';
import { type RunningSystem, startSystem } from '../../server/system.js';
import { stopAtScopeEnd } from './cleanup.js';
import { GATEWAY_EXECUTOR } from './executor-mode.js';

export interface TestSystem {
  system: RunningSystem;
  /** What the system logged, one parsed JSON line each, when started with `{ logs: true }`. */
  logs: Array<Record<string, any>>;
  /** `http://127.0.0.1:<port>` of a listener: `core`, `gateway`, `indicators`, … */
  url(listener: string): string;
  stop(): Promise<void>;
}

/**
 * Starts the real system in this process, on free ports, with an embedded SQLite store in a
 * temporary directory unless the environment given says otherwise. Stopped at the end of the test
 * (or file) that started it, if the test does not stop it first (cleanup.ts).
 */
export async function startTestSystem(env: Record<string, string | undefined>, options: { logs?: boolean } = {}): Promise<TestSystem> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cerise-test-'));
  const config = readSystemConfig({
    SERVER_HOST: '127.0.0.1',
    CORE_PORT: '0',
    INDICATORS_PORT: '0',
    IMPACT_PORT: '0',
    RECORDS_PORT: '0',
    GATEWAY_PORT: '0',
    SUBGRAPH_PORT: '0',
    LOG_LEVEL: 'silent',
    // Tests refresh the registry back to back; the refresh rate limit's own tests set it.
    REGISTRY_REFRESH_MIN_INTERVAL_SECS: '0',
    DATABASE_URL: `file:${path.join(dir, 'records.db')}`,
    GATEWAY_EXECUTOR,
    ...env,
  });
  const logs: Array<Record<string, any>> = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => (logs.push(JSON.parse(chunk.toString())), done()) });
  const system = await startSystem(config, { logger: options.logs ? createLogger({ level: 'info', destination }) : pino({ level: 'silent' }) });
  return {
    system,
    logs,
    url: (listener) => {
      const port = system.ports[listener];
      if (port === undefined) throw new Error(`no listener ${listener}`);
      return `http://127.0.0.1:${port}`;
    },
    stop: stopAtScopeEnd(async () => {
      await system.stop();
      rmSync(dir, { recursive: true, force: true });
    }),
  };
}

/** The local-identity mode most behaviour tests run in. */
export const NO_AUTH = { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true' };

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A plain HTTP request as a client sends it; the body is sent as JSON unless it is a string. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
