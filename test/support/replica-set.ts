import { stopAtThisScopeEnd } from './cleanup.js';
import type { Frontends, Haproxy } from './haproxy.js';
import { freePort } from './ports.js';
import { loadLoop } from './load-loop.js';
import { type ServerProcess, spawnServer } from './server-process.js';
import { call } from './system.js';

/**
 * Replicas of the built server (`node dist/bundle/server.js`, one process each) on one database,
 * each on fixed ports for the facades a load balancer fronts (core, records), so that a replica
 * restarted comes back where HAProxy looks for it. Replica i is HAProxy's server `r<i+1>`.
 */
export class ReplicaSet {
  /** A replica restarted in a later test lives as long as the set, not as long as that test. */
  private readonly stopAtEnd = stopAtThisScopeEnd();

  private constructor(
    readonly processes: ServerProcess[],
    private readonly ports: Array<{ core: number; records: number }>,
    private readonly env: Record<string, string>,
  ) {}

  static async start(count: number, env: Record<string, string>): Promise<ReplicaSet> {
    const ports = await Promise.all(Array.from({ length: count }, async () => ({ core: await freePort(), records: await freePort() })));
    const set = new ReplicaSet([], ports, env);
    set.processes.push(...(await Promise.all(ports.map((_, i) => set.spawn(i)))));
    return set;
  }

  get frontends(): Frontends {
    return { core: this.ports.map((p) => p.core), records: this.ports.map((p) => p.records) };
  }

  url(replica: number, listener: string): string {
    return this.processes[replica]!.url(listener);
  }

  /**
   * One step of a rolling restart, as an operator does it: SIGTERM (its readiness answers 503 at
   * once and it keeps serving for SHUTDOWN_DRAIN_DELAY_MS), HAProxy takes it out, it drains and
   * exits; a new process on the same ports, until HAProxy puts it back. Resolves with the exit.
   */
  async restartGracefully(replica: number, lb: Haproxy): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const old = this.processes[replica]!;
    old.signal('SIGTERM');
    await lb.untilState(`r${replica + 1}`, 'DOWN');
    const exit = await old.exited;
    this.processes[replica] = await this.spawn(replica);
    await lb.untilState(`r${replica + 1}`, 'UP');
    return exit;
  }

  /** SIGKILL: no drain, no goodbye; resolves once it is gone. */
  async kill(replica: number): Promise<void> {
    this.processes[replica]!.signal('SIGKILL');
    await this.processes[replica]!.exited;
  }

  /** Every replica stopped as `ServerProcess.stop` does (outside jest, where nothing stops them at a scope's end). */
  async stop(): Promise<void> {
    await Promise.all(this.processes.map((replica) => replica.stop()));
  }

  private spawn(replica: number): Promise<ServerProcess> {
    const { core, records } = this.ports[replica]!;
    return spawnServer({ ...this.env, CORE_PORT: String(core), RECORDS_PORT: String(records) }, { stopAtEnd: this.stopAtEnd });
  }
}

/** The mini model's create route (test/support/mini-model.ts). */
export const MINI_CREATE = '/models/mini/versions/1.0:create';

export interface Outcome {
  request: 'create' | 'read' | 'list';
  /** The create's Idempotency-Key, which is also its record id. */
  key?: string;
  status: number | 'no answer';
}

export interface ReplicaLoad {
  outcomes: Outcome[];
  /** Keys of the creates answered 200. */
  accepted(): string[];
  /** Every outcome that is not a 2xx. */
  failed(): Outcome[];
  stop(): Promise<void>;
}

/**
 * A steady load through the load balancer, one request at a time per lane: two lanes of `:create`
 * (each with its own Idempotency-Key, its record id), one reading back the last record created
 * through the records facade, one listing the models.
 */
export function replicaLoad(lb: Haproxy, prefix: string): ReplicaLoad {
  const outcomes: Outcome[] = [];
  const accepted: string[] = [];
  const lanes: Array<(n: number, lane: number) => Promise<Outcome>> = [
    (n, lane) => createThrough(lb.url('core'), `${prefix}-${lane}-${n}`),
    (n, lane) => createThrough(lb.url('core'), `${prefix}-${lane}-${n}`),
    () => attempt('read', () => call(lb.url('records'), 'GET', `/records/${encodeURIComponent(accepted.at(-1) ?? 'none-yet')}`), accepted.length === 0 ? [404] : []),
    () => attempt('list', () => call(lb.url('core'), 'GET', '/models')),
  ];
  const loop = loadLoop(async (n, lane) => {
    const outcome = await lanes[lane]!(n, lane);
    outcomes.push(outcome);
    if (outcome.request === 'create' && outcome.status === 200) accepted.push(outcome.key!);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }, lanes.length);
  return {
    outcomes,
    accepted: () => [...accepted],
    failed: () => outcomes.filter((o) => o.status === 'no answer' || o.status < 200 || o.status >= 300),
    stop: loop.stop,
  };
}

/** `:create` on the core facade at `core` of a valid mini Widget whose id is its key. */
export function createThrough(core: string, key: string): Promise<Outcome> {
  const payload = { id: key, name: `Widget ${key}`, weight: 2.5 };
  return attempt('create', () => call(core, 'POST', MINI_CREATE, { body: { payload }, headers: { 'idempotency-key': key } }), [], key);
}

/** `alsoFine`: statuses that count as 200 here (a read before anything was created is a 404). */
async function attempt(request: Outcome['request'], send: () => Promise<{ status: number }>, alsoFine: number[] = [], key?: string): Promise<Outcome> {
  try {
    const { status } = await send();
    return { request, key, status: alsoFine.includes(status) ? 200 : status };
  } catch {
    return { request, key, status: 'no answer' };
  }
}
