import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { projectPath } from '../kernel/project.js';
import { GRAFBASE_CLI, type InsertedHeader, writeGrafbaseConfig } from '../test/support/grafbase.js';
import { freePort } from '../test/support/ports.js';

/** A server running as its own process, started by a benchmark. */
export interface ServerProcess {
  pid: number;
  /** Bound ports by listener name, as the process reported them. */
  ports: Record<string, number>;
  /** Resident set size now, from /proc (MB). */
  rssMb(): number;
  /** CPU time used so far, user + system, by the process and its running children (a cluster's workers), from /proc (ms, 10 ms resolution). */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * `node dist/bundle/server.js` (the deployment's entry point) with `env` only (plus PATH), reading
 * the bound ports from its `started` log line. Stopped with SIGTERM (graceful), then SIGKILL.
 * `nodeArgs` go before the script (`--cpu-prof --cpu-prof-dir=…` profiles the process until it stops).
 */
export function startServerProcess(name: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  // One process unless asked: rssMb reads this pid's /proc, not a cluster's workers'.
  return started(name, process.execPath, [...nodeArgs, projectPath('dist', 'bundle', 'server.js')], { LOG_LEVEL: 'info', WORKERS: '1', ...env }, (line) => {
    const entry = JSON.parse(line) as { msg?: string; ports?: Record<string, number> };
    return entry.msg === 'started' ? entry.ports! : undefined;
  });
}

/**
 * Two systems in one process (`system-pair.ts`): `a` and `b`, each with its whole environment (the
 * deployment's defaults but for what `env` sets). Their listeners are `a:gateway`, `b:core`, ….
 * What a figure that compares two settings runs on, loaded in turns (load.ts, compareLoads with
 * `alternate`), so that the setting is all that differs: two processes of one build differ by
 * themselves (bench/PROFILE.md, "The questionnaire reused, and comparing two settings"), and one process under one system's turn
 * is never idle, where a process of its own sits idle through the other's turn and comes back
 * slower. `processEnv` is the process's own (NODE_ENV).
 */
export function startSystemPair(name: string, a: Record<string, string>, b: Record<string, string>, processEnv: Record<string, string> = {}): Promise<ServerProcess> {
  // Every listener on a port of its own.
  const side = (env: Record<string, string>) => ({ LOG_LEVEL: 'info', ...env, WORKERS: '1', CORE_PORT: '0', GATEWAY_PORT: '0', INDICATORS_PORT: '0', IMPACT_PORT: '0', RECORDS_PORT: '0' });
  return started(name, process.execPath, [projectPath('dist', 'bench', 'system-pair.js')], { ...processEnv, SYSTEM_PAIR: JSON.stringify({ a: side(a), b: side(b) }) }, (line) => {
    const entry = JSON.parse(line) as { ports?: Record<string, number> };
    return entry.ports;
  });
}

/**
 * Hive Gateway in its own process (`peers/hive-gateway.ts`, built by `npm run bench:peers`) on the
 * committed supergraph; it prints `{"ports":{"gateway":…}}` once it listens.
 */
export function startHiveGatewayProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const script = projectPath('bench', 'peers', 'dist', 'hive-gateway.js');
  const supergraph = projectPath('gateway', 'supergraph.graphql');
  return started('hive-gateway', process.execPath, [...nodeArgs, script], { SUPERGRAPH_PATH: supergraph, ...env }, (line) => {
    const entry = JSON.parse(line) as { ports?: Record<string, number> };
    return entry.ports;
  });
}

/**
 * Grafbase's gateway as its users start it offline: `grafbase dev` (Grafbase's CLI, installed by
 * `npm run tools:grafbase`; test/support/grafbase.ts) on a `grafbase.toml` in `dir` naming each
 * subgraph's URL and SDL, inserting `headers` into every subgraph request (our gateway's secret), no
 * authentication; on a free loopback port, its port `gateway` once it answers. `HOME` is `dir`: the
 * CLI's own files stay there.
 */
export async function startGrafbaseProcess(dir: string, subgraphs: ReadonlyArray<{ name: string; url: string; sdl: string }>, headers: InsertedHeader[]): Promise<ServerProcess> {
  const config = writeGrafbaseConfig(dir, subgraphs, headers);
  const port = await freePort();
  // It prints `➜ Local: http://127.0.0.1:<port>` (with colours) once the graph is composed and it listens.
  return started('grafbase', GRAFBASE_CLI, ['dev', '--config', config, '--port', String(port)], { HOME: dir }, (line) => (line.includes(`http://127.0.0.1:${port}`) ? { gateway: port } : undefined));
}

function started(name: string, command: string, args: string[], env: Record<string, string>, readyPorts: (line: string) => Record<string, number> | undefined): Promise<ServerProcess> {
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let ports: Record<string, number> | undefined;
        try {
          ports = readyPorts(line);
        } catch {
          continue;
        }
        if (ports) {
          child.stdout!.off('data', onData);
          child.stdout!.resume();
          child.off('exit', onExit);
          resolve(handle(child, ports));
        }
      }
    };
    const onExit = (code: number | null) => reject(new Error(`${name} exited with ${code} before listening: ${stderr.join('').slice(-2000)}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** USER_HZ: 100 on Linux everywhere this runs. */
const CLOCK_TICKS = 100;

/** A process's CPU so far, user + system, from `/proc/<pid>/stat` (ms); 0 once it is gone. */
function cpuMsOf(pid: number, withReapedChildren = false): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields 14 to 17 (utime, stime, cutime, cstime) in clock ticks, after the parenthesised name.
  const ticks = stat
    .split(') ')[1]!
    .split(' ')
    .slice(11, withReapedChildren ? 15 : 13);
  return (ticks.reduce((sum, field) => sum + Number(field), 0) * 1000) / CLOCK_TICKS;
}

/** The running children of a process (a cluster's workers), from its main thread's `children` list. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * This process's CPU so far and that of its children that have ended (ms): what a benchmark spends
 * beside the servers it measures, its load generators (wrk, autocannon's process, once each run
 * ends) and its own event loop.
 */
export function benchCpuMs(): number {
  return cpuMsOf(process.pid, true);
}

function handle(child: ChildProcess, ports: Record<string, number>): ServerProcess {
  return {
    pid: child.pid!,
    ports,
    rssMb: () => {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN);
      return Math.round(kb / 1024);
    },
    cpuMs: () => [child.pid!, ...childrenOf(child.pid!)].reduce((sum, pid) => sum + cpuMsOf(pid), 0),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
