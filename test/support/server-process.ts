import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { projectPath } from '../../kernel/project.js';
import type { Answer } from './system.js';
import { stopAtScopeEnd } from './cleanup.js';

/** What `npm run serve` runs: the built server's bundle (scripts/bundle-server.mjs). */
export const SERVER_ENTRY = projectPath('dist', 'bundle', 'server.js');

/**
 * The built server (`node dist/bundle/server.js`, run `npm run build` first) as a child process, the
 * way a deployment runs it (every default setting, one worker per CPU), on free ports it reports in
 * its `started` log line.
 *
 *   const server = await spawnServer({ ...NO_AUTH, ...env });
 *   server.url('core'); server.signal('SIGTERM'); await server.exited;
 *
 * With `envFile`, it runs as `node --env-file=<file> dist/bundle/server.js`: the file's settings,
 * under `env`'s (Node lets the environment win over the file). It is stopped at the end of the
 * scope that spawned it, or with `stopAtEnd` (`stopAtThisScopeEnd()` of another scope).
 */
export interface ServerProcess {
  pid: number;
  ports: Record<string, number>;
  url(listener: string): string;
  signal(signal: NodeJS.Signals): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** SIGTERM and wait; kills it if it does not exit within 20 s. Called at the end of the scope that spawned it, at the latest. */
  stop(): Promise<void>;
}

/** Every facade's and the gateway's listener on a free port of the loopback interface. */
export const FREE_LOOPBACK_PORTS = {
  SERVER_HOST: '127.0.0.1',
  CORE_PORT: '0',
  INDICATORS_PORT: '0',
  IMPACT_PORT: '0',
  RECORDS_PORT: '0',
  GATEWAY_PORT: '0',
} as const;

/** A primary and its workers each build every subgraph and compile the registry: slow on a busy machine. */
const STARTUP_TIMEOUT_MS = 60_000;

export async function spawnServer(env: Record<string, string>, options: { envFile?: string; stopAtEnd?: typeof stopAtScopeEnd } = {}): Promise<ServerProcess> {
  const stopAtEnd = options.stopAtEnd ?? stopAtScopeEnd;
  const nodeOptions = options.envFile === undefined ? [] : [`--env-file=${options.envFile}`];
  // A records store of its own unless the test (or its env file) names one: never the working tree's data/records.db.
  const dir = mkdtempSync(path.join(tmpdir(), 'cerise-server-'));
  const ownStore = options.envFile === undefined ? { DATABASE_URL: `file:${path.join(dir, 'records.db')}` } : {};
  const child = spawn(process.execPath, [...nodeOptions, SERVER_ENTRY], {
    env: {
      PATH: process.env.PATH ?? '',
      ...ownStore,
      ...FREE_LOOPBACK_PORTS,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  const ports = await startedPorts(child, () => output, exited);
  return {
    pid: child.pid!,
    ports,
    url: (listener) => `http://127.0.0.1:${ports[listener] ?? fail(`no listener ${listener}`)}`,
    signal: (signal) => child.kill(signal),
    exited,
    output: () => output,
    stop: stopAtEnd(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }),
  };
}

/** Waits for the `started` log line (pino JSON with `ports`). */
function startedPorts(child: ChildProcess, output: () => string, exited: Promise<unknown>): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`server did not start within ${STARTUP_TIMEOUT_MS} ms:\n${output()}`)), STARTUP_TIMEOUT_MS);
    const onData = () => {
      for (const line of output().split('\n')) {
        const entry = parseJson(line);
        if (entry?.msg === 'started' && entry.ports) finish(undefined, entry.ports);
      }
    };
    const finish = (error?: Error, ports?: Record<string, number>) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else resolve(ports!);
    };
    child.stdout!.on('data', onData);
    void exited.then(() => finish(new Error(`server exited before it started:\n${output()}`)));
  });
}

function parseJson(line: string): Record<string, any> | undefined {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function fail(message: string): never {
  throw new Error(message);
}

/**
 * A JSON request whose body is sent in two halves on its own connection: after `sent` resolves the
 * request is in flight (headers and half the body received by the server); `finish()` sends the
 * rest and resolves with the answer.
 */
export interface PartialRequest {
  sent: Promise<void>;
  /** The client side's port of its connection, once `sent` resolved (see `workerHolding`). */
  localPort(): number | undefined;
  finish(): Promise<Answer>;
}

export function partialRequest(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): PartialRequest {
  const bytes = Buffer.from(JSON.stringify(body));
  const half = Math.floor(bytes.length / 2);
  const req = httpRequest(`${base}${path}`, {
    method,
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), ...headers },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: new Headers(response.headers as Record<string, string>), text, json: parseJson(text) });
      });
      response.on('error', reject);
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined); // observed by finish(); a cut before then is not an unhandled rejection
  const sent = new Promise<void>((resolve) => req.write(bytes.subarray(0, half), () => resolve()));
  return {
    sent,
    localPort: () => req.socket?.localPort,
    finish: () => {
      req.end(bytes.subarray(half));
      return answer;
    },
  };
}

/** Whether a new TCP connection to the port is accepted (`connected`) or refused (its error code). */
export function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

/** The primary's children, as the operating system sees them: its workers. */
export function workerPids(server: ServerProcess): number[] {
  try {
    return execFileSync('ps', ['--ppid', String(server.pid), '-o', 'pid='], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

/**
 * Which worker holds the server side of the connection whose client side is `clientPort`, as
 * Linux sees it: the socket's inode from /proc/net/tcp{,6}, then the worker with a descriptor on it.
 * The primary decides which worker gets a connection; a test that needs one on a given worker asks.
 */
export function workerHolding(server: ServerProcess, clientPort: number): number | undefined {
  const inodes = ['tcp', 'tcp6'].flatMap((table) =>
    readFileSync(`/proc/net/${table}`, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields.length > 9 && portOf(fields[2]!) === clientPort && Object.values(server.ports).includes(portOf(fields[1]!)))
      .map((fields) => `socket:[${fields[9]}]`),
  );
  return workerPids(server).find((pid) => descriptors(pid).some((target) => inodes.includes(target)));
}

/** The port of an address in /proc/net/tcp's form, `0100007F:1F90`. */
function portOf(address: string): number {
  return parseInt(address.split(':').at(-1)!, 16);
}

function descriptors(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return []; // closed meanwhile
      }
    });
  } catch {
    return []; // the process is gone
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every line of the server's output that is pino JSON with this message (any worker's or the primary's). */
export function logged(server: ServerProcess, msg: string): Array<Record<string, any>> {
  return server
    .output()
    .split('\n')
    .map(parseJson)
    .filter((entry): entry is Record<string, any> => entry?.msg === msg);
}
