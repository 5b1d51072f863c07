import { LISTENER_APPLICATION_NAME } from '../../subgraphs/models/store/registry-notifier.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { Haproxy } from '../support/haproxy.js';
import { freePort } from '../support/ports.js';
import { eventually } from '../support/load-loop.js';
import { miniModelHost } from '../support/mini-model.js';
import { ReplicaSet, createThrough, replicaLoad } from '../support/replica-set.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { NO_AUTH, call } from '../support/system.js';
import { createDatabase, onDatabase, postgresReachable } from '../subgraphs/models/store/support.js';

/**
 * Issue "Past one process", items 2 and 3: three replicas of the built server on one PostgreSQL
 * database behind Debian's HAProxy, which health-checks `/admin/ready`. A registry refresh on one
 * replica reaches the others (LISTEN/NOTIFY), also after the listening connection was cut; a
 * rolling restart under steady load loses no request and stores every accepted create once;
 * SIGKILL costs only the requests in flight on the killed replica, and their retries with the same
 * Idempotency-Key store nothing twice. In distributed mode, models subgraphs behind HAProxy scale on
 * their own, the gateway naming HAProxy as their URL.
 *
 * The first three tests share one deployment, as an operator's would live through them in turn: the
 * refreshes leave it serving, the rolling restart leaves three replicas up, the kill comes last.
 * Each load writes records under its own prefix, and each test counts only its own.
 */
const runnable = Haproxy.available() && (await postgresReachable());
const describeScale = runnable ? describe : describe.skip;

/** A deployment: its catalog host, database, three replicas and HAProxy. */
async function startDeployment() {
  const mini = await miniModelHost();
  const database = await createDatabase('postgresql');
  // Registered before the replicas: dropped after they have stopped.
  stopAtScopeEnd(() => database.drop());
  const replicas = await ReplicaSet.start(3, {
    ...NO_AUTH,
    ...mini.env,
    DATABASE_URL: database.url,
    // Long enough for HAProxy (checks every 200 ms) to take a stopping replica out while it still serves.
    SHUTDOWN_DRAIN_DELAY_MS: '1000',
    // Replicas learn of a new catalog from each other only: the catalog polls have their own test.
    REGISTRY_CATALOG_POLL_SECS: '0',
    DATABASE_POOL_SIZE: '4',
  });
  const lb = await Haproxy.start(replicas.frontends);
  for (const server of ['r1', 'r2', 'r3']) await lb.untilState(server, 'UP');
  const rows = (sql: string) => onDatabase('postgresql', database.url, sql);
  return { mini, replicas, lb, rows };
}

describeScale('replicas behind HAProxy', () => {
  let deployment: Awaited<ReturnType<typeof startDeployment>>;
  beforeAll(async () => {
    deployment = await startDeployment();
  }, 120_000);

  test('a refresh on one replica reaches the other two, also after their listening connections were cut', async () => {
    const { mini, replicas, rows } = deployment;
    const revisions = () => Promise.all([0, 1, 2].map(async (i) => (await call(replicas.url(i, 'core'), 'GET', '/admin/status')).json.registry.catalog_revision as string));
    const initial = await revisions();
    expect(initial[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(initial).size).toBe(1);

    /** Relabels the catalog, refreshes replica `on`, and waits until all three serve its revision. */
    const propagate = async (on: number, label: string) => {
      mini.host.serve('/catalog.json', JSON.stringify([{ ...(mini.catalog[0] as object), label }]));
      const started = Date.now();
      expect((await call(replicas.url(on, 'core'), 'POST', '/admin/registry/refresh')).status).toBe(200);
      const target = (await revisions())[on]!;
      const agreed = await eventually(async () => (await revisions()).every((revision) => revision === target));
      // Timing belongs to the bench (scale.refresh_propagation.ms); shown here for whoever reads the run.
      console.info(`refresh on replica ${on + 1} served by all three after ${Date.now() - started} ms`);
      expect({ label, agreed }).toEqual({ label, agreed: true });
      return target;
    };

    const first = await propagate(0, 'Mini, first relabelling');
    expect(first).not.toBe(initial[0]);

    const listening = () => rows(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${LISTENER_APPLICATION_NAME}'`);
    // Every worker of every replica listens (at least one each).
    const listeners = (await listening()).length;
    expect(listeners).toBeGreaterThanOrEqual(3);
    const cut = await rows(`SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${LISTENER_APPLICATION_NAME}'`);
    expect(cut).toEqual(Array(listeners).fill({ cut: true }));
    // Right away, whether or not they listen again yet: a replica that missed it refreshes once it does.
    await propagate(1, 'Mini, refreshed while the listeners were cut');

    expect(await eventually(async () => (await listening()).length === listeners)).toBe(true);
    await propagate(2, 'Mini, after the listeners came back');
  }, 240_000);

  test('a rolling restart under steady load loses no request and stores every accepted create exactly once', async () => {
    const { replicas, lb, rows } = deployment;
    const load = replicaLoad(lb, 'rolling');
    await eventually(() => load.accepted().length >= 10);
    for (const replica of [0, 1, 2]) {
      const before = load.accepted().length;
      expect({ replica, exit: await replicas.restartGracefully(replica, lb) }).toEqual({ replica, exit: { code: 0, signal: null } });
      expect(await eventually(() => load.accepted().length >= before + 10)).toBe(true);
    }
    await load.stop();

    expect({ failed: load.failed(), log: load.failed().length === 0 ? '' : lb.log() }).toEqual({ failed: [], log: '' });
    expect(new Set(load.outcomes.map((o) => o.request))).toEqual(new Set(['create', 'read', 'list']));
    await expectStoredOnce(rows, load.accepted(), 'rolling');
  }, 120_000);

  test('SIGKILL costs only the requests in flight on that replica; retried with their Idempotency-Key, nothing is stored twice', async () => {
    const { replicas, lb, rows } = deployment;
    const load = replicaLoad(lb, 'killed');
    await eventually(() => load.accepted().length >= 10);
    await replicas.kill(1);
    await lb.untilState('r2', 'DOWN');
    const before = load.accepted().length;
    expect(await eventually(() => load.accepted().length >= before + 20)).toBe(true);
    await load.stop();

    // Each of the load's four lanes has one request in flight at a time.
    const failed = load.failed();
    expect({ failed, log: failed.length <= 4 ? '' : lb.log() }).toEqual({ failed, log: '' });
    for (const outcome of failed) expect([502, 503, 504, 'no answer']).toContain(outcome.status);
    for (const { key } of failed.filter((o) => o.request === 'create')) expect((await createThrough(lb.url('core'), key!)).status).toBe(200);
    const sent = load.outcomes.filter((o) => o.request === 'create').map((o) => o.key!);
    await expectStoredOnce(rows, sent, 'killed');
  }, 120_000);

  test("distributed mode: the gateway's MODELS_SUBGRAPH_URL names HAProxy in front of two models subgraphs, which share the work and follow each other's refreshes", async () => {
    const mini = await miniModelHost();
    const database = await createDatabase('postgresql');
    stopAtScopeEnd(() => database.drop());
    const secret = 'the-test-gateway-subgraph-secret';
    const ports = [await freePort(), await freePort()];
    const subgraphEnv = { ...NO_AUTH, ...mini.env, DATABASE_URL: database.url, REGISTRY_CATALOG_POLL_SECS: '0', GATEWAY_SUBGRAPH_SECRET: secret };
    const subgraphs = await Promise.all(ports.map((port) => spawnServer({ ...subgraphEnv, PROCESS_ROLE: 'subgraph', SUBGRAPH: 'models', SUBGRAPH_PORT: String(port) })));
    const lb = await Haproxy.start({ models: ports }, '/health');
    for (const server of ['r1', 'r2']) await lb.untilState(server, 'UP');
    // The operations below need only the models subgraph.
    const nowhere = `http://127.0.0.1:${await freePort()}/graphql`;
    const edge = await spawnServer({
      ...NO_AUTH,
      PROCESS_ROLE: 'gateway',
      GATEWAY_SUBGRAPH_SECRET: secret,
      MODELS_SUBGRAPH_URL: `${lb.url('models')}/graphql`,
      INDICATORS_SUBGRAPH_URL: nowhere,
      IMPACT_SUBGRAPH_URL: nowhere,
    });

    const revisionOf = async (subgraph: ServerProcess) =>
      (await call(subgraph.url('subgraph:models'), 'POST', '/graphql', { body: { query: '{ health { status { registry { catalogRevision } } } }' } })).json.data.health.status.registry
        .catalogRevision as string;
    const before = await revisionOf(subgraphs[0]!);
    mini.host.serve('/catalog.json', JSON.stringify([{ ...(mini.catalog[0] as object), label: 'Mini, refreshed through the edge' }]));
    expect((await call(edge.url('core'), 'POST', '/admin/registry/refresh')).status).toBe(200);
    const agreedOnANewOne = async () => {
      const seen = new Set(await Promise.all(subgraphs.map(revisionOf)));
      return seen.size === 1 && !seen.has(before);
    };
    expect(await eventually(agreedOnANewOne)).toBe(true);

    const keys = Array.from({ length: 10 }, (_, n) => `distributed-${n}`);
    for (const key of keys) expect((await createThrough(edge.url('core'), key)).status).toBe(200);
    await expectStoredOnce((sql) => onDatabase('postgresql', database.url, sql), keys, 'distributed');
    for (const server of ['r1', 'r2']) expect(lb.log()).toMatch(new RegExp(`models models/${server} .*"POST /graphql`));
  }, 120_000);
});

/** Of the records whose id starts with `prefix`, the table holds exactly these ids, each once, and one idempotency key for each. */
async function expectStoredOnce(rows: (sql: string) => Promise<Record<string, unknown>[]>, keys: string[], prefix: string): Promise<void> {
  const stored = (await rows(`SELECT id FROM records WHERE id LIKE '${prefix}-%'`)).map((row) => row.id as string);
  expect(stored.length).toBe(keys.length);
  expect(stored.sort()).toEqual([...keys].sort());
  expect(await rows(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key LIKE '${prefix}-%'`)).toEqual([{ n: keys.length }]);
}
