import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stopAtScopeEnd } from './cleanup.js';

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
 */
export class PostgresServer {
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

  async destroy(): Promise<void> {
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
