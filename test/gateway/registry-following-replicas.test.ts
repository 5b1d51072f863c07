import type { PublishedSubgraph, SupergraphVersion } from '../../gateway/schema-registry/supergraph-versions.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { GREETING, type GreetingsSubgraph, startGreetingsSubgraph } from '../support/greetings-subgraph.js';
import { eventually, loadLoop } from '../support/load-loop.js';
import { miniModelHost } from '../support/mini-model.js';
import { type SupergraphRegistry, codeSubgraphs, openSupergraphRegistry } from '../support/supergraph-registry.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startTestSystem } from '../support/system.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { SAMPLE_TEMPLATE } from '../subgraphs/indicators/local-profile.js';
import { createDatabase, postgresReachable } from '../subgraphs/models/store/support.js';

/**
 * Issue 38, item 3, past one machine: three subgraph processes and two gateway replicas following
 * the schema registry on one PostgreSQL database, each as `npm run serve` starts it (its default
 * workers). A version that adds a new subgraph (another team's, at its routing URL) is served by
 * every worker of both replicas without a failed request under load; one naming a subgraph the
 * gateways have no URL for is refused by both; a rollback takes the field away again; the
 * registry's database out of reach costs nothing but one warning per worker, and the replicas follow
 * again once it answers. The tests share the deployment, as an operator's would live through them.
 */
const describePostgres = (await postgresReachable()) ? describe : describe.skip;

const SECRET = { GATEWAY_SUBGRAPH_SECRET: 'test-gateway-subgraph-secret' };
const GREETING_QUERY = { query: '{ greeting }' };
const SERVING = 'supergraph: serving a new version of the schema registry';
const REFUSED = 'supergraph: a version of the schema registry cannot be loaded; the one served stays in service until a newer version is published';
const UNREACHABLE = 'supergraph: the schema registry cannot be read; this process serves the supergraph it has until it can';

describePostgres('two gateway replicas following the schema registry on PostgreSQL', () => {
  let gateways: TestSystem[];
  let registry: SupergraphRegistry;
  let greetings: GreetingsSubgraph;
  let code: PublishedSubgraph[];
  let database: TcpProxy;

  beforeAll(async () => {
    const mini = await miniModelHost();
    const records = await createDatabase('postgresql');
    stopAtScopeEnd(() => records.drop());
    greetings = await startGreetingsSubgraph();
    const subgraphs = Object.fromEntries(
      await Promise.all(
        (['models', 'indicators', 'impact'] as const).map(async (name) => {
          const env = { ...NO_AUTH, ...mini.env, ...SECRET, ARTIFACT_BASE_URL_TEMPLATE: SAMPLE_TEMPLATE, DATABASE_URL: records.url, PROCESS_ROLE: 'subgraph', SUBGRAPH: name };
          const process = await startTestSystem(env);
          return [name, `${process.url(`subgraph:${name}`)}/graphql`] as const;
        }),
      ),
    );
    // The gateways reach the registry through a proxy this test can cut; the models subgraph reaches its records directly.
    const target = new URL(records.url);
    database = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const proxied = Object.assign(new URL(records.url), { port: String(database.port) }).toString();
    const gateway = () =>
      startTestSystem({
        ...NO_AUTH,
        ...SECRET,
        PROCESS_ROLE: 'gateway',
        DATABASE_URL: proxied,
        SUPERGRAPH_SOURCE: 'registry',
        MODELS_SUBGRAPH_URL: subgraphs.models!,
        INDICATORS_SUBGRAPH_URL: subgraphs.indicators!,
        IMPACT_SUBGRAPH_URL: subgraphs.impact!,
      });
    gateways = await Promise.all([gateway(), gateway()]);
    registry = await openSupergraphRegistry(records.url);
    code = await codeSubgraphs();
  }, 240_000);

  const workersOf = (gateway: TestSystem): number => gateway.logs.find((line) => line.msg === 'started')!.workers;
  const linesOf = (gateway: TestSystem, msg: string, registryVersion?: number) =>
    gateway.logs.filter((line) => line.msg === msg && (registryVersion === undefined || line.registryVersion === registryVersion));
  const graphql = (gateway: TestSystem, body: unknown) => callOnNewConnection(gateway.url('gateway'), 'POST', '/graphql', { body });
  const greetingServed = async (gateway: TestSystem) => (await graphql(gateway, GREETING_QUERY)).json?.data?.greeting === GREETING;
  const greetingUnknown = async (gateway: TestSystem) => (await graphql(gateway, GREETING_QUERY)).json?.errors?.[0]?.extensions?.code === 'GRAPHQL_VALIDATION_FAILED';

  /** Whether `probe` holds on both replicas, on twice as many connections of their own in a row as each has workers (the primary hands each to the next). */
  async function everyWorkerOfBoth(probe: (gateway: TestSystem) => Promise<boolean>): Promise<boolean> {
    const all = async (gateway: TestSystem) => {
      for (let n = 0; n < 2 * workersOf(gateway); n++) if (!(await probe(gateway))) return false;
      return true;
    };
    return eventually(async () => (await Promise.all(gateways.map(all))).every(Boolean));
  }

  /** Until every worker of both replicas logged `msg` for `version`, once each. */
  async function loggedByEveryWorker(msg: string, version: SupergraphVersion): Promise<void> {
    const each = () => gateways.every((gateway) => new Set(linesOf(gateway, msg, version.id).map((line) => line.pid)).size === workersOf(gateway));
    expect({ msg, logged: await eventually(each) }).toEqual({ msg, logged: true });
  }

  test('a version adding another team’s subgraph, published under load: every worker of both replicas serves its field, no request fails', async () => {
    expect(await everyWorkerOfBoth(greetingUnknown)).toBe(true);
    const failures: unknown[] = [];
    const load = loadLoop(async (n, lane) => {
      const gateway = gateways[lane % 2]!;
      const answer = lane < 2 ? await call(gateway.url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model version } }' } }) : await call(gateway.url('core'), 'GET', '/models');
      if (answer.status !== 200 || answer.json?.errors) failures.push({ lane, n, status: answer.status, body: answer.text.slice(0, 300) });
    }, 4);

    const additive = await registry.publish([...code, greetings.published]);
    await loggedByEveryWorker(SERVING, additive);
    expect(await everyWorkerOfBoth(greetingServed)).toBe(true);
    await load.stop();
    expect(failures).toEqual([]);
    for (const gateway of gateways) {
      expect((await callOnNewConnection(gateway.url('gateway'), 'GET', '/admin/supergraph')).text).toBe(additive.supergraphSdl);
      expect((await callOnNewConnection(gateway.url('core'), 'GET', '/admin/status')).json.supergraph).toEqual({ version: additive.supergraphHash, registry_version: additive.id });
    }
  });

  test('a version naming a subgraph these gateways have no URL for: refused by every worker, the one served stays', async () => {
    const reviews = { name: 'reviews', url: null, sdl: greetings.published.sdl.replace(/greeting/g, 'review').replace(/Greeting/g, 'Review') };
    const unroutable = await registry.publish([...code, greetings.published, reviews]);
    await loggedByEveryWorker(REFUSED, unroutable);
    for (const gateway of gateways) {
      for (const line of linesOf(gateway, REFUSED, unroutable.id)) expect(line.reason).toBe('subgraph reviews: the version gives no routing URL, and this gateway has none configured for it');
    }
    expect(await everyWorkerOfBoth(greetingServed)).toBe(true);
  });

  test('a rollback (the earlier subgraphs published again): the field is gone from every worker of both replicas', async () => {
    const rollback = await registry.publish(code);
    await loggedByEveryWorker(SERVING, rollback);
    expect(await everyWorkerOfBoth(greetingUnknown)).toBe(true);
    expect((await graphql(gateways[0]!, { query: '{ modelVersions { model version } }' })).json).toEqual({ data: { modelVersions: [{ model: 'mini', version: '1.0' }] } });
  });

  test('the registry out of reach: both replicas serve on, one warning per worker for the outage, and follow again once it answers', async () => {
    await database.down();
    for (const gateway of gateways) {
      expect(await eventually(() => new Set(linesOf(gateway, UNREACHABLE).map((line) => line.pid)).size === workersOf(gateway))).toBe(true);
    }
    // Served meanwhile, while the workers poll on (several polls each).
    for (let n = 0; n < 10; n++) for (const gateway of gateways) expect((await graphql(gateway, { query: '{ modelVersions { model } }' })).status).toBe(200);
    const published = await registry.publish([...code, greetings.published]);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await database.up();

    await loggedByEveryWorker(SERVING, published);
    expect(await everyWorkerOfBoth(greetingServed)).toBe(true);
    for (const gateway of gateways) {
      expect(linesOf(gateway, UNREACHABLE)).toHaveLength(workersOf(gateway));
      expect(new Set(linesOf(gateway, 'supergraph: the schema registry can be read again').map((line) => line.pid)).size).toBe(workersOf(gateway));
      for (const line of linesOf(gateway, UNREACHABLE)) expect(line.reason).not.toMatch(/postgres(ql)?:\/\//);
    }
  });
});
