import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import type { LogLevel } from '../../kernel/logger.js';
import type { PlannerMode } from '../../gateway/executor/planner.js';
import type { RunningSystem } from '../../server/system.js';
import { stopAtScopeEnd } from './cleanup.js';
import { FREE_LOOPBACK_PORTS, type ServerProcess, spawnServer } from './server-process.js';
import { type Backend, backendsUnderTest, createDatabase } from '../subgraphs/models/store/databases.js';

export interface TestSystem {
  /** Every line the system logged so far (pino JSON, every worker's and the primary's), parsed. */
  readonly logs: Array<Record<string, any>>;
  /** The process `npm run serve` started (with workers, their primary). */
  readonly pid: number;
  /** `http://127.0.0.1:<port>` of a listener: `core`, `gateway`, `indicators`, … */
  url(listener: string): string;
  port(listener: string): number;
  stop(): Promise<void>;
}

export interface TestSystemOptions {
  /** The records store: an SQLite file of its own (the default), or a PostgreSQL database of its own, dropped at stop. */
  store?: Backend;
}

/**
 * The real system as `npm run serve` starts it, the way every deployment runs it: the built server
 * (`npm run build` first) as a child process with its default worker count (one per CPU) and every
 * default setting but the ports (free ones) and the store (one of its own). `env` sets what the test
 * is about, and what the deployment must be told (a catalog, an auth mode). Stopped at the end of
 * the test (or file) that started it, if the test does not stop it first (cleanup.ts).
 */
export async function startTestSystem(env: Record<string, string | undefined>, options: TestSystemOptions = {}): Promise<TestSystem> {
  const store = await ownStore(options.store);
  let server: ServerProcess;
  try {
    server = await spawnServer(definedOnly({ SUBGRAPH_PORT: '0', DATABASE_URL: store.url, ...env }));
  } catch (error) {
    await store.remove();
    throw error;
  }
  return {
    get logs() {
      return logLines(server.output());
    },
    pid: server.pid,
    url: (listener) => server.url(listener),
    port: (listener) => server.ports[listener] ?? fail(`no listener ${listener}`),
    stop: stopAtScopeEnd(async () => {
      await server.stop();
      await store.remove();
    }),
  };
}

/** A records store of the system's own: an SQLite file in a new folder, or a new PostgreSQL database; `remove` drops it. */
async function ownStore(backend: Backend | undefined): Promise<{ url: string; remove(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cerise-test-'));
  const database = backend === 'postgresql' ? await createDatabase('postgresql') : undefined;
  return {
    url: database?.url ?? `file:${path.join(dir, 'records.db')}`,
    remove: async () => {
      rmSync(dir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** The stores a contract suite runs on: SQLite always, PostgreSQL when it answers (always under CI=true). */
export const STORES: Backend[] = await backendsUnderTest();

/** The server's modules, imported when the first in-process system starts (in-process-server.ts). */
let inProcessServer: Promise<typeof import('./in-process-server.js')> | undefined;

export interface InProcessSystem extends TestSystem {
  system: RunningSystem;
}

/**
 * The system in this jest process, one process (no workers): for tests that must step its clock
 * (`Date`: a key set's refetch window, test/support/clock.ts), which no child process shares, and
 * for tests of a plugin or a door, whose subject does not depend on the process layout (the test
 * pyramid, docs/DECISIONS.md "Tests"). Tests of what deployments run (workers, replicas, shutdown,
 * the serve defaults) run `startTestSystem`. Its `logs` are kept when started with `{ logs: true }`,
 * at the deployment's default level (info) unless `logLevel` is what the test is about. `planner`:
 * Apollo's where Hive's loads too, for tests about both planners (no setting picks it there).
 */
export async function startInProcessSystem(
  env: Record<string, string | undefined>,
  options: TestSystemOptions & { logs?: boolean; logLevel?: LogLevel; stockExecutorOnly?: boolean; planner?: PlannerMode } = {},
): Promise<InProcessSystem> {
  const { pino, createLogger, readSystemConfig, startSystem } = await (inProcessServer ??= import('./in-process-server.js'));
  const store = await ownStore(options.store);
  const logs: Array<Record<string, any>> = [];
  const destination = new Writable({ write: (chunk, _encoding, done) => (logs.push(JSON.parse(chunk.toString())), done()) });
  let system: RunningSystem;
  try {
    // The settings of an in-process system: free ports, no log lines, the store given; `env` over them.
    const read = readSystemConfig({ ...FREE_LOOPBACK_PORTS, SUBGRAPH_PORT: '0', LOG_LEVEL: 'silent', DATABASE_URL: store.url, ...env });
    const config = options.planner ? { ...read, gatewayPlanner: { mode: options.planner } } : read;
    system = await startSystem(config, {
      logger: options.logs ? createLogger({ level: options.logLevel ?? 'info', destination }) : pino({ level: 'silent' }),
      stockExecutorOnly: options.stockExecutorOnly,
    });
  } catch (error) {
    await store.remove();
    throw error;
  }
  const port = (listener: string) => system.ports[listener] ?? fail(`no listener ${listener}`);
  return {
    system,
    logs,
    pid: process.pid,
    url: (listener) => `http://127.0.0.1:${port(listener)}`,
    port,
    stop: stopAtScopeEnd(async () => {
      await system.stop();
      await store.remove();
    }),
  };
}

function logLines(output: string): Array<Record<string, any>> {
  const lines: Array<Record<string, any>> = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      // a line still being written
    }
  }
  return lines;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function fail(message: string): never {
  throw new Error(message);
}

/** The local-identity mode most behaviour tests run in. */
export const NO_AUTH = { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true' };

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/**
 * One request on a connection of its own, closed after the answer: the cluster's primary hands each
 * new connection to the next worker, so requests sent this way reach every worker in turn (`call`'s
 * fetch keeps connections alive and may send them all to one). The body is sent as JSON.
 */
export function callOnNewConnection(base: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers = { ...options.headers, connection: 'close', ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}) };
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, agent: false, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: new Headers(response.headers as Record<string, string>), text, json: jsonOrUndefined(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function jsonOrUndefined(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A plain HTTP request as a client sends it; the body is sent as JSON unless it is a string. */
export async function call(base: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: jsonOrUndefined(text) };
}
