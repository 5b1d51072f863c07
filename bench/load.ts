import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { wrkLoad } from './wrk.js';

export interface LoadResult {
  /** Latencies in ms (fractional), over 2xx answers. */
  p50: number;
  p99: number;
  /** 2xx answers per second over the whole run. */
  rps: number;
  /** 2xx answers in the run. */
  requests: number;
  errors: number;
  non2xx: number;
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** A placeholder replaced, in the headers and the body, by a value unique to each request sent (idempotency keys, record ids). */
  unique?: string;
  /**
   * GraphQL variable sets sent round-robin in place of `body.variables`: request n (counted over all
   * connections together, in the order they are sent) carries set n mod length, so the requests in
   * flight at one moment carry different sets whenever there are more sets than connections.
   */
  variableSets?: ReadonlyArray<Record<string, unknown>>;
}

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/** What a load generator process is given (bench/load-worker.ts for autocannon, bench/wrk.ts). */
export interface LoadJob {
  url: string;
  method: 'GET' | 'POST';
  connections: number;
  seconds: number;
  headers: Record<string, string>;
  body?: string;
  /** Bodies sent round-robin instead of `body`, in one order over all connections. */
  bodies?: string[];
  /** Replaced in headers and body by a value unique to each request (autocannon only). */
  unique?: string;
}

export interface LoadOptions {
  connections?: number;
  seconds?: number;
  /** autocannon (the default, in a child process) or wrk (bench/wrk.ts), for loads where autocannon's own CPU would be the limit. */
  generator?: 'autocannon' | 'wrk';
}

/**
 * autocannon at a fixed number of connections, in a child process (`load-worker.ts`): the server
 * under test, often in this process, keeps its event loop to itself. Every ratio figure uses it.
 */
export async function load(base: string, request: LoadRequest, options: LoadOptions = {}): Promise<LoadResult> {
  const job: LoadJob = {
    url: base + request.path,
    method: request.method,
    connections: options.connections ?? 20,
    seconds: options.seconds ?? 8,
    headers: { 'content-type': 'application/json', ...request.headers },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    bodies: request.variableSets?.map((variables) => JSON.stringify({ ...(request.body as object), variables })),
    unique: request.unique,
  };
  if (options.generator === 'wrk') {
    if (job.unique) throw new Error('wrk sends no unique values');
    return wrkLoad(job);
  }
  const child = spawn(process.execPath, [WORKER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stdin.end(JSON.stringify(job));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  const result = JSON.parse(Buffer.concat(output).toString('utf8')) as LoadResult;
  return { ...result, p50: round2(result.p50), p99: round2(result.p99) };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export interface Side {
  /** Median of the rounds. */
  result: LoadResult;
  /** Every round, in order (round i of each side ran in the same turn of the alternation). */
  rounds: LoadResult[];
  /** CPU time per answered request (user + system, ms) of this process, or of the `cpuMs` given for the side. */
  cpuMs: number;
  /** The same, round by round. */
  roundCpuMs: number[];
  /** CPU time per answered request (ms) of the processes every side shares (`sharedCpuMs`: the subgraphs behind several gateways, or the load generator and the bench process), during this side's rounds; 0 without it. */
  sharedCpuMs: number;
}

export interface Comparison<K extends string> {
  sides: Record<K, Side>;
  rounds: number;
  seconds: number;
}

/**
 * The same request against several servers side by side: each warmed up, then `rounds` rounds
 * running each in turn (a, b, c, a, b, c, …), each side reported as the median of its rounds.
 * Alternating keeps a burst of load from elsewhere on the machine from landing on one side only.
 * `requests` gives some sides a request of their own (another load in the same alternation).
 * `alternate` runs every other round in the reverse order; take its ratios with `alternatedRatio`,
 * which pairs the rounds so that the order they ran in cancels out.
 */
export async function compareLoads<K extends string>(
  request: LoadRequest,
  targets: Record<K, string>,
  options: {
    rounds?: number;
    seconds?: number;
    warmUpSeconds?: number;
    cpuMs?: Record<K, () => number>;
    /** CPU used so far by processes every side loads (the subgraph processes behind several gateways; the load generator and the bench process: `benchCpuMs`), taken per side like `cpuMs`. */
    sharedCpuMs?: () => number;
    requests?: Partial<Record<K, LoadRequest>>;
    generator?: LoadOptions['generator'];
    alternate?: boolean;
  } = {},
): Promise<Comparison<K>> {
  const thisProcess = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  const rounds = options.rounds ?? 3;
  const seconds = options.seconds ?? 4;
  const names = Object.keys(targets) as K[];
  const requestOf = (name: K) => options.requests?.[name] ?? request;
  for (const name of names) await load(targets[name], requestOf(name), { seconds: options.warmUpSeconds ?? 2, generator: options.generator });
  const runs = new Map<K, LoadResult[]>(names.map((n) => [n, []]));
  const cpu = new Map<K, number[]>(names.map((n) => [n, []]));
  const shared = new Map<K, number>(names.map((n) => [n, 0]));
  const sharedCpuMs = options.sharedCpuMs ?? (() => 0);
  for (let i = 0; i < rounds; i++) {
    for (const name of options.alternate && i % 2 ? [...names].reverse() : names) {
      const cpuMs = options.cpuMs?.[name] ?? thisProcess;
      const before = cpuMs();
      const sharedBefore = sharedCpuMs();
      const result = await load(targets[name], requestOf(name), { seconds, generator: options.generator });
      cpu.get(name)!.push(cpuMs() - before);
      shared.set(name, shared.get(name)! + sharedCpuMs() - sharedBefore);
      runs.get(name)!.push(result);
    }
  }
  const sides = {} as Record<K, Side>;
  for (const name of names) {
    const result = medianOf(runs.get(name)!);
    const cpuRounds = cpu.get(name)!;
    sides[name] = {
      result,
      rounds: runs.get(name)!,
      cpuMs: cpuRounds.reduce((sum, ms) => sum + ms, 0) / Math.max(1, result.requests),
      roundCpuMs: cpuRounds.map((ms, i) => ms / Math.max(1, runs.get(name)![i]!.requests)),
      sharedCpuMs: shared.get(name)! / Math.max(1, result.requests),
    };
  }
  return { sides, rounds, seconds };
}

/**
 * `a[i] ÷ b[i]` over the rounds of an alternated comparison (`alternate: true`), free of the order
 * the sides ran in. Alternated, each side runs twice in a row (a b | b a | a b …), and the second of
 * two runs in a row measured about 13% off a run after the process sat idle, faster in some runs and
 * slower in others: the round-by-round ratios of one code came out 0.84, 1.13, 0.82, 1.11, 0.85,
 * 1.22, whose median is either mode by chance.
 * A pair of rounds (one in each order) gives every side each place once: the geometric mean of its
 * two ratios. The median of the pairs keeps a burst of load from elsewhere within one pair.
 */
export function alternatedRatio(a: number[], b: number[]): { ratio: number; pairs: number[] } {
  const pairs: number[] = [];
  for (let i = 0; i + 1 < Math.min(a.length, b.length); i += 2) pairs.push(Math.sqrt((a[i]! / b[i]!) * (a[i + 1]! / b[i + 1]!)));
  const sorted = [...pairs].sort((x, y) => x - y);
  const middle = sorted.length / 2;
  const ratio = sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { ratio, pairs };
}

/** The median of rounds: each measure's middle value (the upper of two), counts summed. */
export function medianOf(runs: LoadResult[]): LoadResult {
  const median = (pick: (r: LoadResult) => number) => {
    const sorted = runs.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  return {
    p50: median((r) => r.p50),
    p99: median((r) => r.p99),
    rps: median((r) => r.rps),
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
  };
}
