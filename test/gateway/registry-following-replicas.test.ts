import type { PublishedSubgraph, SupergraphVersion } from '../../gateway/schema-registry/supergraph-versions.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { GREETING, type GreetingsSubgraph, startGreetingsSubgraph } from '../support/greetings-subgraph.js';
import { eventually, loadLoop } from '../support/load-loop.js';
import { miniModelHost } from '../support/mini-model.js';
import { type SupergraphRegistry, codeSubgraphs, openSupergraphRegistry } from '../support/supergraph-registry.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startInProcessSystem, startTestSystem } from '../support/system.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { SAMPLE_TEMPLATE } from '../subgraphs/indicators/local-profile.js';
import { createDatabase, postgresReachable } from '../subgraphs/models/store/support.js';
import { printedSdl, run, sdlFolder, withoutLabel } from '../schema-registry/support.js';

/**
 * Issue 38's done-when, past one machine: two gateway replicas following the schema registry on one
 * PostgreSQL database, each as `npm run serve` starts it (its default workers), three subgraphs they
 * reach over HTTP at their routing URLs (in the jest process: the replicas are the subject, not the
 * subgraphs' layout), and a team publishing with `npm run schema:publish` as its CI would. A version that adds
 * a new subgraph (another team's, at its routing URL) is served by every worker of both replicas
 * without a failed request under load; a publish that breaks a REST route is refused naming the
 * route, and nothing changes; one naming a subgraph the gateways have no URL for (written to the
 * table by a careless hand) is refused by both; a rollback takes the field away again; the
 * registry's database out of reach costs nothing but one warning per worker, and the replicas
 * follow again once it answers. The tests share the deployment, as an operator's would live through them.
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
  /** `npm run schema:publish -- ARGS` on the records database, as a team's CI runs it. */
  let publish: (...args: string[]) => ReturnType<typeof run>;
  let files: ReturnType<typeof sdlFolder>;

  beforeAll(async () => {
    const mini = await miniModelHost();
    const records = await createDatabase('postgresql');
    stopAtScopeEnd(() => records.drop());
    greetings = await startGreetingsSubgraph();
    const subgraphs = Object.fromEntries(
      await Promise.all(
        (['models', 'indicators', 'impact'] as const).map(async (name) => {
          const env = { ...NO_AUTH, ...mini.env, ...SECRET, ARTIFACT_BASE_URL_TEMPLATE: SAMPLE_TEMPLATE, DATABASE_URL: records.url, PROCESS_ROLE: 'subgraph', SUBGRAPH: name };
          const subgraph = await startInProcessSystem(env);
          return [name, `${subgraph.url(`subgraph:${name}`)}/graphql`] as const;
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
    publish = (...args) => run('schema-publish', args, { DATABASE_URL: records.url, SCHEMA_PUBLISH_AUTHOR: 'platform-team' });
    files = sdlFolder();
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

  /** The version a publish just appended: the registry's newest. */
  async function published(run: Awaited<ReturnType<typeof publish>>): Promise<SupergraphVersion> {
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    return (await registry.newest())!;
  }

  test('the models subgraph published from the code: the first version, served by every worker of both replicas', async () => {
    expect(await everyWorkerOfBoth(greetingUnknown)).toBe(true);
    const first = await published(await publish('--subgraph', 'models'));
    expect(first.id).toBe(1);
    await loggedByEveryWorker(SERVING, first);
  });

  test('a version adding another team’s subgraph, published with schema:publish under load: every worker of both replicas serves its field, no request fails', async () => {
    expect(await everyWorkerOfBoth(greetingUnknown)).toBe(true);
    const failures: unknown[] = [];
    const load = loadLoop(async (n, lane) => {
      const gateway = gateways[lane % 2]!;
      const answer = lane < 2 ? await call(gateway.url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model version } }' } }) : await call(gateway.url('core'), 'GET', '/models');
      if (answer.status !== 200 || answer.json?.errors) failures.push({ lane, n, status: answer.status, body: answer.text.slice(0, 300) });
    }, 4);

    const additive = await published(await publish('--subgraph', `greetings=${files.write('greetings.graphql', greetings.published.sdl)}`, '--url', greetings.url));
    expect(additive.subgraphs.map((s) => s.name)).toEqual(['models', 'indicators', 'impact', 'greetings']);
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

  test('a publish that breaks a REST route (ModelVersion.label, which GET /models selects) is refused naming the route; nothing is published, every worker serves on', async () => {
    const before = (await registry.newest())!;
    const refused = await publish('--subgraph', `models=${files.write('models.graphql', withoutLabel(await printedSdl('models')))}`);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('  core GET /models: Cannot query field "label" on type "ModelVersion".');
    expect((await registry.newest())!.id).toBe(before.id);
    expect(await everyWorkerOfBoth(greetingServed)).toBe(true);
    expect((await call(gateways[1]!.url('core'), 'GET', '/models')).status).toBe(200);
  });

  test('a rollback to the first version (schema:publish --rollback-to 1): the field is gone from every worker of both replicas', async () => {
    // Clients used the field meanwhile (this test's probes): withdrawing it is a breaking change the team decides on.
    const rollback = await published(await publish('--rollback-to', '1', '--force', 'greetings withdrawn: the team moves it to its own gateway'));
    expect(rollback.rollbackOf).toBe(1);
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
