import { Haproxy } from '../test/support/haproxy.js';
import { miniArtifact, miniModelHost } from '../test/support/mini-model.js';
import { ReplicaSet, replicaLoad } from '../test/support/replica-set.js';
import { call } from '../test/support/system.js';
import { createDatabase, onDatabase, postgresReachable } from '../test/subgraphs/models/store/support.js';
import { type Figure, percentile } from './figures.js';

type MiniHost = Awaited<ReturnType<typeof miniModelHost>>;

/**
 * Issue "Past one process": three replicas of the built server (each as `npm run serve` starts it, one worker per CPU) on
 * one PostgreSQL database behind Debian's HAProxy, as test/scale/replicas.test.ts runs them.
 * - `scale.refresh_propagation.ms`: from `POST /admin/registry/refresh` on one replica until all
 *   three report the new catalog revision in `/admin/status`, the worst of five rounds (each on
 *   the next replica, the catalog relabelled each time) after one to warm up;
 *   `scale.refresh_propagation_recompiled.ms` the same when an artifact changed too (every worker compiles).
 * - `scale.rolling_restart.failed_requests`: requests through HAProxy that did not get a 2xx while
 *   each replica in turn is restarted (SIGTERM, drain, start) under a steady load.
 */
const ROUNDS = 5;
/** Often enough to time it to a few tens of milliseconds, seldom enough not to slow the replicas down. */
const STATUS_POLL_MS = 25;
/** A little more than REGISTRY_REFRESH_MIN_INTERVAL_SECS's default (1 s) between refresh rounds. */
const REFRESH_SPACING_MS = 1_200;

export async function benchScale(): Promise<Figure[]> {
  if (!Haproxy.available() || !(await postgresReachable())) {
    console.warn('scale bench skipped: it needs haproxy and PostgreSQL');
    return [];
  }
  const mini = await miniModelHost();
  const database = await createDatabase('postgresql');
  let replicas: ReplicaSet | undefined;
  let lb: Haproxy | undefined;
  try {
    replicas = await ReplicaSet.start(3, {
      AUTH_MODE: 'none',
      AUTH_ALLOW_INSECURE_NONE: 'true',
      NODE_ENV: 'production',
      ...mini.env,
      DATABASE_URL: database.url,
      SHUTDOWN_DRAIN_DELAY_MS: '1000',
      REGISTRY_CATALOG_POLL_SECS: '0',
      DATABASE_POOL_SIZE: '4',
    });
    lb = await Haproxy.start(replicas.frontends);
    for (const server of ['r1', 'r2', 'r3']) await lb.untilState(server, 'UP');
    return [...(await refreshPropagation(mini, replicas)), await rollingRestart(replicas, lb, database.url)];
  } finally {
    await lb?.stop();
    await replicas?.stop();
    await database.drop();
    await mini.host.stop();
  }
}

/** What a refresh round changes at the artifact host before it asks: the catalog only, or an artifact as well. */
type RoundChange = (mini: MiniHost, round: number) => void;

const relabel: RoundChange = (mini, round) => mini.host.serve('/catalog.json', JSON.stringify([{ ...(mini.catalog[0] as object), label: `Mini, round ${round}` }]));

/** A new schema.json text (trailing spaces: a new ETag, the same schema), so that every replica compiles again. */
const newSchema: RoundChange = (mini, round) => {
  relabel(mini, round);
  mini.host.serve('/mini/1.0/schema.json', miniArtifact('schema.json') + ' '.repeat(round + 1));
};

async function refreshPropagation(mini: MiniHost, replicas: ReplicaSet): Promise<Figure[]> {
  const catalogOnly = await propagationRounds(mini, replicas, relabel);
  const recompiled = await propagationRounds(mini, replicas, newSchema);
  const rounds = (samples: number[]) =>
    `worst of ${ROUNDS} rounds after one to warm up, each ${REFRESH_SPACING_MS} ms after the last (REGISTRY_REFRESH_MIN_INTERVAL_SECS, default 1 s, spaces a replica's runs) (median ${Math.round(percentile(samples, 50))} ms), mini model over HTTP`;
  return [
    {
      id: 'scale.refresh_propagation.ms',
      value: Math.round(Math.max(...catalogOnly)),
      unit: 'ms',
      target: 500,
      better: 'lower',
      note: `POST /admin/registry/refresh on one of three replicas (PostgreSQL LISTEN/NOTIFY) after a catalog change (a label) until all three report its catalog_revision (each polled every ${STATUS_POLL_MS} ms until it does); ${rounds(catalogOnly)}`,
    },
    {
      id: 'scale.refresh_propagation_recompiled.ms',
      value: Math.round(Math.max(...recompiled)),
      unit: 'ms',
      better: 'lower',
      note: `the same after a changed artifact (schema.json), which every worker of every replica compiles again; ${rounds(recompiled)}`,
    },
  ];
}

/** Propagation times of ROUNDS refreshes, each asked of the next replica after `change`. */
async function propagationRounds(mini: MiniHost, replicas: ReplicaSet, change: RoundChange): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    // A replica starts a refresh no sooner than REGISTRY_REFRESH_MIN_INTERVAL_SECS (1 s by default) after its last one
    // ended: rounds back to back would measure that spacing (about 2 s: the asked replica's, then the others'), not the announcement.
    await new Promise((resolve) => setTimeout(resolve, REFRESH_SPACING_MS));
    change(mini, round);
    const ms = await propagation(replicas, round % 3);
    // Round 0 warms up: the first refresh after start-up runs cold code.
    if (round > 0) samples.push(ms);
  }
  return samples;
}

/** Milliseconds from the refresh asked of replica `on` until every replica serves its revision. */
async function propagation(replicas: ReplicaSet, on: number): Promise<number> {
  const revision = async (i: number) => (await call(replicas.url(i, 'core'), 'GET', '/admin/status')).json.registry.catalog_revision as string;
  const started = performance.now();
  const refresh = await call(replicas.url(on, 'core'), 'POST', '/admin/registry/refresh');
  if (refresh.status !== 200) throw new Error(`refresh answered ${refresh.status}: ${refresh.text}`);
  const target = await revision(on);
  const converged = async (i: number) => {
    while ((await revision(i)) !== target) await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
  };
  await Promise.all([0, 1, 2].filter((i) => i !== on).map(converged));
  return performance.now() - started;
}

async function rollingRestart(replicas: ReplicaSet, lb: Haproxy, databaseUrl: string): Promise<Figure> {
  const load = replicaLoad(lb, 'bench-rolling');
  await until(() => load.accepted().length >= 20);
  for (const replica of [0, 1, 2]) {
    const exit = await replicas.restartGracefully(replica, lb);
    if (exit.code !== 0) throw new Error(`replica ${replica + 1} exited with ${JSON.stringify(exit)}`);
    const before = load.accepted().length;
    await until(() => load.accepted().length >= before + 20);
  }
  await load.stop();
  const accepted = load.accepted();
  const [{ rows, ids }] = (await onDatabase('postgresql', databaseUrl, 'SELECT count(*)::int AS rows, count(DISTINCT id)::int AS ids FROM records')) as Array<{ rows: number; ids: number }>;
  return {
    id: 'scale.rolling_restart.failed_requests',
    value: load.failed().length,
    unit: 'requests',
    target: 0,
    better: 'lower',
    note: `three replicas behind HAProxy (checks /admin/ready every 200 ms), each restarted in turn (SIGTERM, SHUTDOWN_DRAIN_DELAY_MS=1000, exit, start) under a steady load of :create, GET /records/{id} and GET /models: ${load.outcomes.length} requests, ${accepted.length} creates accepted, ${rows} rows stored (${ids} distinct ids)`,
  };
}

async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
