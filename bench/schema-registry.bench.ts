import type { PublishedSubgraph } from '../gateway/schema-registry/supergraph-versions.js';
import { GREETING, startGreetingsSubgraph } from '../test/support/greetings-subgraph.js';
import { loadLoop } from '../test/support/load-loop.js';
import { miniModelHost } from '../test/support/mini-model.js';
import { ReplicaSet } from '../test/support/replica-set.js';
import { codeSubgraphs, openSupergraphRegistry } from '../test/support/supergraph-registry.js';
import { call, callOnNewConnection } from '../test/support/system.js';
import { createDatabase, postgresReachable } from '../test/subgraphs/models/store/support.js';
import { type Figure, percentile } from './figures.js';

/**
 * Issue 38, item 3: two replicas of the built server (each as `npm run serve` starts it, one worker
 * per CPU, SUPERGRAPH_SOURCE=registry at its default poll) on one PostgreSQL database, under a
 * steady load through `/graphql` and a REST route on both.
 * - `registry.publish_to_served.ms`: from a version appended to the registry (the publish's write
 *   committed) until every worker of both replicas serves it, the worst of ROUNDS rounds after one
 *   to warm up; the versions alternate between adding the greetings subgraph and taking it away;
 * - `registry.swap_failed_requests`: the load's requests that did not get a 2xx without errors
 *   during those swaps;
 * - `registry.version_load.ms`: what a worker took to build a version's edge (its log line), median.
 */
const ROUNDS = 5;
/** Often enough to time a swap to a few tens of milliseconds, seldom enough not to load the replicas. */
const PROBE_EVERY_MS = 20;

export async function benchSchemaRegistry(): Promise<Figure[]> {
  if (!(await postgresReachable())) {
    console.warn('schema registry bench skipped: it needs PostgreSQL');
    return [];
  }
  const mini = await miniModelHost();
  const database = await createDatabase('postgresql');
  const greetings = await startGreetingsSubgraph();
  let replicas: ReplicaSet | undefined;
  const registry = await openSupergraphRegistry(database.url);
  try {
    replicas = await ReplicaSet.start(2, { AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', NODE_ENV: 'production', ...mini.env, DATABASE_URL: database.url, SUPERGRAPH_SOURCE: 'registry' });
    const code = await codeSubgraphs();
    const load = swapLoad(replicas);
    const samples: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const adds = round % 2 === 0;
      const subgraphs: PublishedSubgraph[] = adds ? [...code, greetings.published] : code;
      const ms = await publishToServed(replicas, () => registry.publish(subgraphs), adds);
      if (round > 0) samples.push(ms);
    }
    await load.stop();
    const loads = replicas.processes.flatMap((replica) =>
      replica
        .output()
        .split('\n')
        .filter((line) => line.includes('"supergraph: serving a new version of the schema registry"'))
        .map((line) => JSON.parse(line).ms as number),
    );
    const workers = [0, 1].map((i) => workersOf(replicas!, i));
    return [
      {
        id: 'registry.publish_to_served.ms',
        value: Math.round(Math.max(...samples)),
        unit: 'ms',
        target: 2000,
        better: 'lower',
        note: `a version appended to the registry (PostgreSQL) until every worker of two replicas (${workers.join(' and ')} workers) serves it: new connections to each replica's /graphql until two in a row per worker answer as the version does (a field it adds or took away), every ${PROBE_EVERY_MS} ms; worst of ${ROUNDS} rounds after one to warm up (median ${Math.round(percentile(samples, 50))} ms), SUPERGRAPH_POLL_MS at its default, under load`,
      },
      {
        id: 'registry.swap_failed_requests',
        value: load.failed.length,
        unit: 'requests',
        target: 0,
        better: 'lower',
        note: `requests of a steady load (two lanes per replica: POST /graphql modelVersions, GET /models on the core facade) that did not get a 2xx without errors during the ${ROUNDS + 1} swaps: ${load.sent()} requests`,
      },
      {
        id: 'registry.version_load.ms',
        value: Math.round(percentile(loads, 50)),
        unit: 'ms',
        better: 'lower',
        note: `what a worker took to read a version and build its edge (gateway, planner, /graphql, the facades' routes validated) before switching, median of ${loads.length} (p95 ${Math.round(percentile(loads, 95))} ms), from the workers' log lines`,
      },
    ];
  } finally {
    await replicas?.stop();
    await registry.close();
    await greetings.stop();
    await database.drop();
    await mini.host.stop();
  }
}

/** Milliseconds from `publish`'s write until every worker of both replicas serves the greeting field (`adds`) or refuses it. */
async function publishToServed(replicas: ReplicaSet, publish: () => Promise<unknown>, adds: boolean): Promise<number> {
  const serves = async (i: number) => {
    const answer = await callOnNewConnection(replicas.url(i, 'gateway'), 'POST', '/graphql', { body: { query: '{ greeting }' } });
    return adds ? answer.json?.data?.greeting === GREETING : answer.json?.errors?.[0]?.extensions?.code === 'GRAPHQL_VALIDATION_FAILED';
  };
  const workers = [0, 1].map((i) => workersOf(replicas, i));
  await publish();
  const started = performance.now();
  await Promise.all(
    [0, 1].map(async (i) => {
      for (let inARow = 0; inARow < 2 * workers[i]!;) {
        inARow = (await serves(i)) ? inARow + 1 : 0;
        if (inARow === 0) await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
      }
    }),
  );
  return performance.now() - started;
}

/** The workers replica `i` runs, as its `started` line says. */
function workersOf(replicas: ReplicaSet, i: number): number {
  const started = replicas.processes[i]!.output()
    .split('\n')
    .find((line) => line.includes('"msg":"started"'));
  return JSON.parse(started!).workers as number;
}

/** Two lanes per replica, one request at a time each: `/graphql` and a REST route. */
function swapLoad(replicas: ReplicaSet) {
  const failed: unknown[] = [];
  let sent = 0;
  const loop = loadLoop(async (_n, lane) => {
    const replica = lane % 2;
    sent++;
    try {
      const answer =
        lane < 2
          ? await call(replicas.url(replica, 'gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model version } }' } })
          : await call(replicas.url(replica, 'core'), 'GET', '/models');
      if (answer.status !== 200 || answer.json?.errors) failed.push({ lane, status: answer.status });
    } catch (error) {
      failed.push({ lane, error: (error as Error).message });
    }
  }, 4);
  return { failed, sent: () => sent, stop: loop.stop };
}
