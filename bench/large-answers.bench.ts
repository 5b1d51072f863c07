import os from 'node:os';
import { miniModelHost } from '../test/support/mini-model.js';
import { spawnServer } from '../test/support/server-process.js';
import { LARGE_PAGE_QUERY, type LargeAnswerOutcome, concurrentLargeAnswers, sampleReplicaRss, seedLargeRecords } from '../test/support/large-answers.js';
import { createDatabase, postgresReachable } from '../test/subgraphs/models/store/support.js';
import { type Figure, round } from './figures.js';

const CLIENTS = 20;
const ROUNDS = 3;

/**
 * `graphql.concurrent_large_answers.*` (issue 35, row 2): twenty clients at once, each asking
 * `/graphql` for 35 records of 900 KB payloads (31.5 MB, just under REQUEST_MAX_RESPONSE_BYTES),
 * against the built server as `npm run serve` starts it (its worker count, every default limit) on
 * PostgreSQL. Each client gets a complete answer or a 503 with Retry-After; `failed_connections`
 * counts the others (a reset connection, a body cut short), over every round; `rss_peak_mb` is the
 * largest sum of the primary's and its workers' resident memory sampled every 20 ms.
 */
export async function benchLargeAnswers(): Promise<Figure[]> {
  if (!(await postgresReachable())) {
    console.warn('graphql.concurrent_large_answers skipped: PostgreSQL unreachable');
    return [];
  }
  const mini = await miniModelHost();
  const database = await createDatabase('postgresql');
  const server = await spawnServer({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', NODE_ENV: 'production', ...mini.env, DATABASE_URL: database.url });
  try {
    await seedLargeRecords(server.url('records'));
    // One answer first: the operation planned and compiled, the pools connected.
    await concurrentLargeAnswers(server.url('gateway'), 1);
    const outcomes: LargeAnswerOutcome[] = [];
    let peak = 0;
    const loads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      loads.push(os.loadavg()[0]!);
      const rss = sampleReplicaRss(server.pid);
      outcomes.push(...(await concurrentLargeAnswers(server.url('gateway'), CLIENTS)));
      peak = Math.max(peak, await rss.stop());
    }
    const count = (kind: LargeAnswerOutcome['kind']) => outcomes.filter((outcome) => outcome.kind === kind).length;
    const failures = outcomes.flatMap((outcome) => (outcome.kind === 'failed' ? [outcome.reason] : []));
    const note =
      `${ROUNDS} rounds of ${CLIENTS} concurrent POST /graphql ${LARGE_PAGE_QUERY} (35 records of 900 KB payloads, 31.5 MB answers), each on its own connection, ` +
      `against the built server with its defaults (WORKERS ${os.availableParallelism()}, PostgreSQL); ${count('complete')} complete 200s, ${count('refused')} refusals ` +
      `(${[...new Set(outcomes.flatMap((o) => (o.kind === 'refused' ? [`${o.status} ${o.code} Retry-After ${o.retryAfter}`] : [])))].join(', ') || 'none'}), ` +
      `${failures.length} failed${failures.length ? ` (${[...new Set(failures)].join(', ')})` : ''}; 1-min load average ${loads.map((load) => round(load, 1)).join(', ')} at each round's start on ${os.cpus().length} CPUs`;
    return [
      { id: 'graphql.concurrent_large_answers.failed_connections', value: failures.length, unit: 'connections', target: 0, better: 'lower', note },
      { id: 'graphql.concurrent_large_answers.rss_peak_mb', value: Math.round(peak / 2 ** 20), unit: 'MB', target: 1500, better: 'lower', note: `the primary and its workers, summed; ${note}` },
      { id: 'graphql.concurrent_large_answers.complete_answers', value: count('complete'), unit: 'answers', better: 'higher', note },
    ];
  } finally {
    await server.stop();
    await database.drop();
    await mini.host.stop();
  }
}
