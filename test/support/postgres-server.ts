import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stopAtScopeEnd } from './cleanup.js';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 server programs (the packages the machine and CI run). */
const BIN = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL server of a test's own: a new cluster in a temporary directory on a free port,
 * started, stopped and started again with `pg_ctl` as an operator would, so that a test can stop
 * the database under load (connections terminated by the server, then refused, then the server's
 * own start-up) without touching the shared server at 127.0.0.1:5432. PostgreSQL refuses to run as
 * root: as root, every command runs as the `postgres` user.
 *
 *   const server = await PostgresServer.create();   // server.url: postgresql://postgres@127.0.0.1:<port>/postgres
 *   await server.stop(); … await server.start(); … await server.destroy();
 *   server.freeze(); … server.thaw();                // every process of the server stopped (SIGSTOP), then continued
 */
export class PostgresServer {
  /** The processes `freeze` stopped, continued by `thaw` (and by `destroy`, whatever happened). */
  private frozen: number[] = [];

  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  /** Whether this machine can run one (skip with a message otherwise, never under CI=true). */
  static available(): boolean {
    const found = existsSync(path.join(BIN, 'initdb')) && existsSync(path.join(BIN, 'pg_ctl'));
    if (!found && process.env.CI === 'true') throw new Error(`PostgreSQL server programs not found in ${BIN} under CI`);
    if (!found) console.warn(`skipping: PostgreSQL server programs not found in ${BIN} (set TEST_POSTGRES_BIN)`);
    return found;
  }

  static async create(): Promise<PostgresServer> {
    const dir = mkdtempSync(path.join(tmpdir(), 'pg-own-'));
    if (userInfo().uid === 0) chownSync(dir, ...(await postgresIds()));
    const server = new PostgresServer(dir, await freePort());
    await server.pg('initdb', '-D', server.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync');
    stopAtScopeEnd(() => server.destroy());
    await server.start();
    return server;
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await this.pg('pg_ctl', '-D', this.data, '-o', options, '-l', path.join(this.dir, 'server.log'), '-w', 'start');
  }

  /** Stops the server as `pg_ctl stop` does by default (fast: sessions terminated, no new ones). */
  async stop(): Promise<void> {
    await this.pg('pg_ctl', '-D', this.data, '-m', 'fast', '-w', 'stop');
  }

  /**
   * A database that hangs: the postmaster and every backend stopped with SIGSTOP. Connections stay
   * open, new ones are accepted by the kernel, and nothing answers, as with a host that froze.
   * The postmaster first, so that it starts no backend the list below would miss.
   */
  freeze(): void {
    const postmaster = Number(readFileSync(path.join(this.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    this.frozen.push(postmaster);
    process.kill(postmaster, 'SIGSTOP');
    for (const pid of childrenOf(postmaster)) {
      if (signal(pid, 'SIGSTOP')) this.frozen.push(pid);
    }
  }

  thaw(): void {
    for (const pid of this.frozen.splice(0)) signal(pid, 'SIGCONT');
  }

  async destroy(): Promise<void> {
    this.thaw();
    await this.pg('pg_ctl', '-D', this.data, '-m', 'immediate', '-w', 'stop').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async pg(program: string, ...args: string[]): Promise<void> {
    const command = path.join(BIN, program);
    if (userInfo().uid === 0) await run('runuser', ['-u', 'postgres', '--', command, ...args], { cwd: this.dir });
    else await run(command, args, { cwd: this.dir });
  }
}

async function postgresIds(): Promise<[number, number]> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
}

/** The processes whose parent is `pid` (Linux: /proc/<pid>/stat, the parent after the command's closing parenthesis). */
/**
 * False when the process is gone: a backend can end between the listing and the signal, and one
 * that was already exiting when frozen (a zombie) is reaped by the postmaster once that continues.
 */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}
