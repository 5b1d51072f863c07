import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadJob, LoadResult } from './load.js';

/**
 * wrk (Debian's package), the load generator of the figures where autocannon would be the limit:
 * on two CPUs autocannon spends about as much CPU per `GET /models` answer as the server does, so
 * a second worker would only share the CPU the generator leaves. wrk, written in C, spends a small
 * fraction of that; it runs one thread (one CPU at most). Latencies are wrk's (microsecond
 * resolution), over every answer; errors count connection failures and timeouts, `non2xx` answers
 * of status 400 and above.
 */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/**
 * The generator of the gateway comparisons: wrk when installed, unless BENCH_LOAD_GENERATOR=autocannon
 * asks for the earlier one (to compare figures with runs before wrk).
 */
export function preferredGenerator(): 'wrk' | 'autocannon' {
  return process.env.BENCH_LOAD_GENERATOR !== 'autocannon' && wrkAvailable() ? 'wrk' : 'autocannon';
}

/** Prints the summary as one JSON line after wrk's own report (the `done` hook runs once, at the end). */
const SCRIPT = `
local job = dofile(os.getenv("WRK_JOB"))
wrk.method = job.method
wrk.body = job.body
for name, value in pairs(job.headers) do wrk.headers[name] = value end
if job.bodies then
  local sent = 0
  request = function()
    sent = sent % #job.bodies + 1
    return wrk.format(nil, nil, nil, job.bodies[sent])
  end
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\n{"p50":%f,"p99":%f,"completed":%d,"micros":%d,"errors":%d,"non2xx":%d}\\n',
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests, summary.duration,
    e.connect + e.read + e.write + e.timeout, e.status))
end
`;

export async function wrkLoad(job: LoadJob): Promise<LoadResult> {
  const folder = mkdtempSync(path.join(tmpdir(), 'cerise-wrk-'));
  try {
    writeFileSync(path.join(folder, 'job.lua'), `return ${luaValue({ method: job.method, body: job.body, headers: job.headers, bodies: job.bodies })}`);
    writeFileSync(path.join(folder, 'script.lua'), SCRIPT);
    const args = ['-t1', `-c${job.connections}`, `-d${job.seconds}s`, '--timeout', '10s', '-s', path.join(folder, 'script.lua'), job.url];
    const output = await run(args, { ...process.env, WRK_JOB: path.join(folder, 'job.lua') });
    const line = output.trim().split('\n').pop() ?? '';
    const summary = JSON.parse(line) as { p50: number; p99: number; completed: number; micros: number; errors: number; non2xx: number };
    const answered = summary.completed - summary.non2xx;
    return { p50: summary.p50, p99: summary.p99, rps: answered / (summary.micros / 1e6), requests: answered, errors: summary.errors, non2xx: summary.non2xx };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(Buffer.concat(output).toString('utf8')) : reject(new Error(`wrk exited with ${code}`))));
  });
}

/** A Lua literal of strings, lists and tables of them (long brackets, so the bodies need no escaping). */
function luaValue(value: unknown): string {
  if (value === undefined) return 'nil';
  if (Array.isArray(value)) return `{ ${value.map(luaValue).join(', ')} }`;
  if (typeof value === 'string') {
    let level = '';
    while (value.includes(`]${level}]`)) level += '=';
    return `[${level}[${value}]${level}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{ ${entries.map(([k, v]) => `[ ${luaValue(k)} ] = ${luaValue(v)}`).join(', ')} }`;
}
