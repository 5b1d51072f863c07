import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAtScopeEnd } from './cleanup.js';
import { freePort } from './ports.js';

/**
 * Debian's HAProxy (`apt-get install haproxy`; `.ci/run` installs it) as a child process on
 * loopback, in front of replicas of the server: one frontend per facade, each balancing over the
 * replicas' ports of that facade. Every replica is health-checked once, by default on the core's
 * `/admin/ready`; the other facades' servers `track` that check (a replica's facades live and die
 * together). The settings are the ones docs/DEPLOYMENT.md recommends, with short check intervals:
 *
 * - `option http-server-close`: one server-side connection per request, so that a replica closing
 *   an idle keep-alive connection (its keep-alive timeout, its drain) never meets a request that
 *   HAProxy was about to send on it, which HAProxy could not retry for a POST;
 * - `retries` and `option redispatch 1`: a connection a replica refuses (stopped, killed) is
 *   retried on another replica; nothing was sent, so even a POST is safe to retry;
 * - `fall 1 rise 1`: one failed check takes a replica out, one good check puts it back.
 *
 *   const lb = await Haproxy.start({ core: [8080, 9080], records: [8083, 9083] });
 *   lb.url('core'); await lb.untilState('r1', 'DOWN');
 */
export type Frontends = Record<string, number[]>;

/** Debian installs it in /usr/sbin, which a user's PATH may lack. */
const HAPROXY = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';

/** How often HAProxy checks each replica. */
export const CHECK_INTERVAL_MS = 200;

export class Haproxy {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly ports: Record<string, number>,
    private readonly exited: Promise<void>,
    /** The backend whose servers carry the checks: the first frontend's. */
    private readonly checked: string,
  ) {}

  /** Whether HAProxy is installed: skip with a message otherwise, but never under CI=true (then fail). */
  static available(): boolean {
    const found = spawnSync(HAPROXY, ['-v'], { stdio: 'ignore' }).status === 0;
    if (!found && process.env.CI === 'true') throw new Error("haproxy not found under CI (.ci/run installs Debian's package)");
    if (!found) console.warn('skipping: haproxy not found (apt-get install haproxy)');
    return found;
  }

  /**
   * `frontends`: for each facade, the replicas' ports, replica `r1` first. The first (`core`)
   * carries the checks, `GET <probe>`; the others track it.
   */
  static async start(frontends: Frontends, probe = '/admin/ready'): Promise<Haproxy> {
    const names = [...Object.keys(frontends), 'stats'];
    const ports = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await freePort()] as const)));
    const dir = mkdtempSync(path.join(tmpdir(), 'haproxy-'));
    const file = path.join(dir, 'haproxy.cfg');
    writeFileSync(file, configuration(frontends, ports, probe));
    const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const proxy = new Haproxy(child, dir, ports, exited, Object.keys(frontends)[0]!);
    child.stdout!.on('data', (chunk: Buffer) => (proxy.output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (proxy.output += chunk.toString('utf8')));
    stopAtScopeEnd(() => proxy.stop());
    await proxy.untilStatsAnswer();
    return proxy;
  }

  url(frontend: string): string {
    return `http://127.0.0.1:${this.ports[frontend]}`;
  }

  /** What HAProxy wrote: a line per request (`option httplog`) and per change of a replica's state. */
  log(): string {
    return this.output;
  }

  /** Each replica's check state (`UP`, `DOWN`, `UP 1/2`, …), by server name. */
  async states(): Promise<Record<string, string>> {
    const csv = await (await fetch(`${this.url('stats')}/stats;csv`)).text();
    const [header, ...rows] = csv
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    const column = (name: string) => header!.findIndex((cell) => cell.replace(/^# /, '') === name);
    const [proxy, server, status] = [column('pxname'), column('svname'), column('status')];
    return Object.fromEntries(rows.filter((row) => row[proxy] === this.checked && /^r\d+$/.test(row[server]!)).map((row) => [row[server]!, row[status]!]));
  }

  /** Polls the stats until replica `server` (`r1`, …) is in `state`; throws after `timeoutMs`. */
  async untilState(server: string, state: 'UP' | 'DOWN', timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while ((await this.states())[server] !== state) {
      if (Date.now() > end) throw new Error(`HAProxy did not see ${server} ${state} within ${timeoutMs} ms: ${JSON.stringify(await this.states())}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const kill = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(kill);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async untilStatsAnswer(): Promise<void> {
    const end = Date.now() + 10_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`haproxy exited at start:\n${this.output}`);
      try {
        await this.states();
        return;
      } catch (error) {
        if (Date.now() > end) throw new Error(`haproxy did not answer within 10 s (${(error as Error).message}):\n${this.output}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
}

function configuration(frontends: Frontends, ports: Record<string, number>, probe: string): string {
  const [checked, ...tracking] = Object.keys(frontends);
  const section = (name: string, servers: (port: number, server: string) => string) => [
    `frontend ${name}`,
    `  bind 127.0.0.1:${ports[name]}`,
    `  default_backend ${name}`,
    `backend ${name}`,
    ...(name === checked ? [`  option httpchk GET ${probe}`, '  http-check expect status 200'] : []),
    ...frontends[name]!.map((port, i) => `  server r${i + 1} 127.0.0.1:${port} ${servers(port, `r${i + 1}`)}`),
  ];
  return [
    'global',
    '  maxconn 4096',
    '  log stdout format raw local0',
    'defaults',
    '  mode http',
    '  log global',
    '  option httplog',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-keep-alive 60s',
    // A check's wait for its answer (`inter` by default): a replica busy with its first requests is
    // not taken out; a stopped or stopping one is, at once (refused, or 503).
    '  timeout check 5s',
    '  retries 3',
    '  option redispatch 1',
    '  option http-server-close',
    `  default-server inter ${CHECK_INTERVAL_MS}ms fall 1 rise 1`,
    ...section(checked!, () => 'check'),
    ...tracking.flatMap((name) => section(name, (_port, server) => `track ${checked}/${server}`)),
    'listen stats',
    `  bind 127.0.0.1:${ports.stats}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ].join('\n');
}
