import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PublishedSubgraph, SupergraphVersion } from '../../gateway/schema-registry/supergraph-versions.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { GREETING, type GreetingsSubgraph, startGreetingsSubgraph } from '../support/greetings-subgraph.js';
import { eventually, loadLoop } from '../support/load-loop.js';
import { miniModelHost } from '../support/mini-model.js';
import { partialRequest, spawnServer } from '../support/server-process.js';
import { type SupergraphRegistry, codeSubgraphs, openSupergraphRegistry, withoutField } from '../support/supergraph-registry.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startTestSystem } from '../support/system.js';

/**
 * Issue 38, item 3: a gateway set to follow the schema registry (SUPERGRAPH_SOURCE=registry) swaps
 * to each new version without a restart, in every worker; requests in flight finish on the version
 * they started with; a version that cannot be loaded leaves the one before in service, with an
 * error line and a metric, and the next good version is taken. One deployment (`all`, SQLite, its
 * default workers), which the tests live through in turn; versions are published by writing the
 * registry's rows, as `schema:publish` does.
 */
const GREETING_QUERY = { query: '{ greeting }' };

let dir: string;
let databaseUrl: string;
let sut: TestSystem;
let registry: SupergraphRegistry;
let greetings: GreetingsSubgraph;
let code: PublishedSubgraph[];
let workers: number;

describe('a deployment following the schema registry (`all`, SQLite, its default workers)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'registry-following-'));
    stopAtScopeEnd(() => rmSync(dir, { recursive: true, force: true }));
    databaseUrl = `file:${path.join(dir, 'records.db')}`;
    const mini = await miniModelHost();
    greetings = await startGreetingsSubgraph();
    // METRICS_ENABLED: the load failures' metric is part of what is tested.
    sut = await startTestSystem({ ...NO_AUTH, ...mini.env, DATABASE_URL: databaseUrl, SUPERGRAPH_SOURCE: 'registry', METRICS_ENABLED: 'true' });
    registry = await openSupergraphRegistry(databaseUrl);
    code = await codeSubgraphs();
    workers = started().workers;
  }, 240_000); // a primary and its workers started, and the code's subgraphs built here, on a busy machine

  const started = () => sut.logs.find((line) => line.msg === 'started')!;
  const graphql = (body: unknown) => callOnNewConnection(sut.url('gateway'), 'POST', '/graphql', { body });
  const linesOf = (msg: string, registryVersion: number) => sut.logs.filter((line) => line.msg === msg && line.registryVersion === registryVersion);
  const SERVING = 'supergraph: serving a new version of the schema registry';
  const REFUSED = 'supergraph: a version of the schema registry cannot be loaded; the one served stays in service until a newer version is published';

  /** Whether `probe` holds on as many connections of their own in a row as twice the workers: the primary hands each to the next worker. */
  async function everyWorker(probe: () => Promise<boolean>): Promise<boolean> {
    return eventually(async () => {
      for (let n = 0; n < 2 * workers; n++) if (!(await probe())) return false;
      return true;
    });
  }

  const greetingServed = async () => (await graphql(GREETING_QUERY)).json?.data?.greeting === GREETING;
  const greetingUnknown = async () => (await graphql(GREETING_QUERY)).json?.errors?.[0]?.extensions?.code === 'GRAPHQL_VALIDATION_FAILED';
  const servedSdl = async () => (await callOnNewConnection(sut.url('gateway'), 'GET', '/admin/supergraph')).text;

  /** Until every worker has logged that it serves `version` (each worker, one line). */
  async function servedByEveryWorker(version: SupergraphVersion): Promise<void> {
    expect(await eventually(() => new Set(linesOf(SERVING, version.id).map((line) => line.pid)).size === workers)).toBe(true);
  }

  test('an empty registry: the committed supergraph is served, one line saying so in each worker', () => {
    expect(workers).toBeGreaterThanOrEqual(2);
    expect(started()).toEqual(expect.objectContaining({ supergraphSource: 'registry', supergraph: expect.stringMatching(/^[0-9a-f]{16}$/) }));
    const empty = sut.logs.filter((line) => line.msg.startsWith('supergraph: no version of the schema registry to serve'));
    expect(empty).toHaveLength(workers);
  });

  test('a version published under load: every worker serves it, the REST routes and /graphql never fail', async () => {
    const failures: unknown[] = [];
    const load = loadLoop(async (_n, lane) => {
      const answer =
        lane === 0
          ? await call(sut.url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model version } }' } })
          : await call(sut.url('core'), 'GET', lane === 1 ? '/models' : '/admin/models/count');
      if (answer.status !== 200 || answer.json?.errors) failures.push({ lane, status: answer.status, body: answer.text.slice(0, 300) });
    }, 3);
    expect(await greetingUnknown()).toBe(true);

    const version = await registry.publish([...code, greetings.published]);
    await servedByEveryWorker(version);
    expect(await everyWorker(greetingServed)).toBe(true);
    expect(await everyWorker(async () => (await servedSdl()) === version.supergraphSdl)).toBe(true);
    await load.stop();

    expect(failures).toEqual([]);
    expect(linesOf(SERVING, version.id)).toEqual(Array(workers).fill(expect.objectContaining({ level: 30, supergraph: version.supergraphHash, ms: expect.any(Number) })));
    const status = await callOnNewConnection(sut.url('core'), 'GET', '/admin/status');
    expect(status.json.supergraph).toEqual({ version: version.supergraphHash, registry_version: version.id });
    const metrics = (await call(sut.url('core'), 'GET', '/admin/metrics')).text;
    expect(metrics).toContain(`supergraph_version_info{version="${version.supergraphHash}"} 1`);
    expect(metrics).not.toContain(`supergraph_version_info{version="${started().supergraph}"}`);
  });

  test('requests in flight when a version is published finish on the one they started with: a body still arriving, a slow subgraph', async () => {
    expect(await everyWorker(greetingServed)).toBe(true);
    const arriving = partialRequest(sut.url('gateway'), 'POST', '/graphql', GREETING_QUERY);
    await arriving.sent;
    const slow = call(sut.url('gateway'), 'POST', '/graphql', { body: { query: '{ slowGreeting }' } });
    expect(await eventually(() => greetings.waiting() === 1)).toBe(true);

    // A rollback: the code's subgraphs alone again, without the greetings subgraph.
    const rollback = await registry.publish(code);
    await servedByEveryWorker(rollback);
    expect(await everyWorker(greetingUnknown)).toBe(true);

    const finished = await arriving.finish();
    expect({ status: finished.status, body: finished.json }).toEqual({ status: 200, body: { data: { greeting: GREETING } } });
    greetings.release();
    const answered = await slow;
    expect({ status: answered.status, body: answered.json }).toEqual({ status: 200, body: { data: { slowGreeting: GREETING } } });
  });

  describe('a version that cannot be loaded leaves the one served in service; the next good one is taken', () => {
    test('each refused with one error line per worker naming its cause, counted, tried once; then a good one', async () => {
      const before = await servedSdl();
      const models = code.find((subgraph) => subgraph.name === 'models')!;
      const bad: Array<[() => Promise<SupergraphVersion>, RegExp]> = [
        [
          () => registry.publish([...code.filter((s) => s !== models), withoutField(models, 'Query.modelVersionCount')]),
          /^the core facade's route GET \/admin\/models\/count: Cannot query field "modelVersionCount" on type "Query"/,
        ],
        [() => registry.appendUnchecked('type Query { greeting: String! ', code), /^Syntax Error/],
        [() => registry.appendUnchecked(`# ${'x'.repeat(3 * 1024 * 1024)}\n${before}`, code), /over the 2097152 a version may take/],
        [() => registry.publish([...code, { ...greetings.published, url: null }]), /^subgraph greetings: the version gives no routing URL, and this gateway has none configured for it$/],
        [() => registry.publish([...code, { ...greetings.published, url: 'ftp://ops:hunter2secret@127.0.0.1/graphql' }]), /^subgraph greetings: its routing URL is not an http or https URL$/],
        [() => registry.appendUnchecked(before, [...code.slice(1)]), /^the supergraph names subgraphs this gateway has no client for: /],
      ];
      const refused: SupergraphVersion[] = [];
      for (const [append, cause] of bad) {
        const version = await append();
        expect(await eventually(() => linesOf(REFUSED, version.id).length === workers)).toBe(true);
        expect(linesOf(REFUSED, version.id)).toEqual(Array(workers).fill(expect.objectContaining({ level: 50, supergraph: version.supergraphHash, reason: expect.stringMatching(cause) })));
        refused.push(version);
      }
      expect(sut.logs.map((line) => JSON.stringify(line)).join('\n')).not.toContain('hunter2secret');

      expect(await everyWorker(async () => (await servedSdl()) === before)).toBe(true);
      expect((await call(sut.url('core'), 'GET', '/admin/models/count')).status).toBe(200);
      const metrics = (await call(sut.url('core'), 'GET', '/admin/metrics')).text;
      expect(metrics).toMatch(new RegExp(`^supergraph_load_failures_total ${bad.length * workers}$`, 'm'));

      const good = await registry.publish([...code, greetings.published]);
      await servedByEveryWorker(good);
      expect(await everyWorker(greetingServed)).toBe(true);
      // Tried once on each worker: none again, neither while it was the newest nor after.
      for (const version of refused) expect(linesOf(REFUSED, version.id)).toHaveLength(workers);
    });

    test('many versions appended at once: the gateway ends on the newest, every worker alive', async () => {
      // One after the other, faster than a poll: each worker sees some of them, or only the last.
      let newest: SupergraphVersion | undefined;
      for (let n = 0; n < 20; n++) newest = await registry.publish(n % 2 === 0 ? [...code, greetings.published] : code);
      newest = newest!;
      await servedByEveryWorker(newest);
      expect(await everyWorker(async () => (await servedSdl()) === newest.supergraphSdl)).toBe(true);
      expect(await everyWorker(greetingUnknown)).toBe(true);
      expect(sut.logs.filter((line) => line.level >= 50 && line.msg !== REFUSED)).toEqual([]);
    });
  });
});

describe('a careless setting stops the start, naming the variable', () => {
  test.each([
    ['SUPERGRAPH_POLL_MS', '50', 'SUPERGRAPH_POLL_MS must be an integer from 100 to 60000 (got "50")'],
    ['SUPERGRAPH_POLL_MS', '86400000', 'SUPERGRAPH_POLL_MS must be an integer from 100 to 60000 (got "86400000")'],
    ['SUPERGRAPH_SOURCE', 'cdn', 'SUPERGRAPH_SOURCE must be one of committed, registry (got "cdn")'],
  ])('%s=%s', async (variable, value, message) => {
    const start = spawnServer({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', SUPERGRAPH_SOURCE: 'registry', [variable]: value });
    await expect(start).rejects.toThrow(`configuration error: ${message}`);
  });
});
