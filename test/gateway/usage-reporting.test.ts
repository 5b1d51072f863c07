import { pathToFileURL } from 'node:url';
import { projectPath } from '../../kernel/project.js';
import { eventually, loadLoop } from '../support/load-loop.js';
import { NO_AUTH, STORES, type TestSystem, startTestSystem } from '../support/system.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { type TestDatabase, createDatabase, postgresReachable } from '../subgraphs/models/store/support.js';

/**
 * Issue 25, usage reporting at the gateway as a user of the admin export sees it: requests through
 * `/graphql` and a REST route are written by the gateway's workers to the records database, on each
 * store (SQLite and PostgreSQL); a database outage while traffic flows fails no request and loses at
 * most one batch per process, and usage is written again once the database is back.
 * USAGE_FLUSH_SECS is 1: flushing is what these tests wait on.
 */
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
const ENV = {
  ...NO_AUTH,
  REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: SAMPLE }]),
  REGISTRY_ALLOW_FILE_URLS: 'true',
  USAGE_FLUSH_SECS: '1',
};

interface UsageExport {
  operations: Array<{ hash: string; name: string | null; type: string; body: string; coordinates: string[] }>;
  counts: Array<{ hash: string; client: string; clientVersion: string; day: string; inputs: string[]; count: number }>;
}

async function graphql(sut: TestSystem, query: string, client?: { name: string; version: string }, variables?: Record<string, unknown>) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (client) Object.assign(headers, { 'graphql-client-name': client.name, 'graphql-client-version': client.version });
  const response = await fetch(`${sut.url('gateway')}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown[] } };
}

async function usageExport(sut: TestSystem): Promise<UsageExport> {
  const response = await fetch(`${sut.url('gateway')}/admin/usage?days=1`);
  expect(response.status).toBe(200);
  return (await response.json()) as UsageExport;
}

/** Requests counted for a client, every worker's once written. */
const requestsOf = (usage: UsageExport, client: string) => usage.counts.filter((c) => c.client === client).reduce((sum, c) => sum + c.count, 0);

describe.each(STORES)('usage written to %s', (store) => {
  let sut: TestSystem;

  beforeAll(async () => {
    sut = await startTestSystem(ENV, { store });
  });
  afterAll(() => sut?.stop());

  test('operations, clients, inputs and the REST routes counted, each operation kept once with its text and coordinates', async () => {
    const kit = { name: 'kit', version: '1.2.0' };
    for (let i = 0; i < 3; i += 1) expect((await graphql(sut, 'query ModelCount { modelVersionCount }', kit)).status).toBe(200);
    const byVariables = 'query OneVersion($model: String!, $version: String!) { modelVersion(model: $model, version: $version) { model version } }';
    for (let i = 0; i < 2; i += 1) expect((await graphql(sut, byVariables, undefined, { model: 're-indicators-specification', version: '0.0.4' })).status).toBe(200);
    expect((await fetch(`${sut.url('core')}/models`)).status).toBe(200);

    const usage = await eventually(async () => {
      const read = await usageExport(sut);
      return requestsOf(read, 'kit') === 3 && requestsOf(read, 'unknown') === 2 && read.counts.some((c) => c.client.startsWith('rest-facade:')) ? read : null;
    });
    expect(usage).not.toBeNull();
    const operation = (name: string) => usage!.operations.find((o) => o.name === name);
    expect(operation('ModelCount')).toEqual(
      expect.objectContaining({ type: 'query', body: expect.stringContaining('modelVersionCount'), coordinates: expect.arrayContaining(['Query.modelVersionCount']) }),
    );
    expect(usage!.operations.filter((o) => o.name === 'ModelCount')).toHaveLength(1);
    expect(usage!.counts.filter((c) => c.client === 'kit')).toEqual([expect.objectContaining({ hash: operation('ModelCount')!.hash, clientVersion: '1.2.0', count: 3, inputs: [] })]);
    const [variables] = usage!.counts.filter((c) => c.hash === operation('OneVersion')?.hash);
    expect(variables).toEqual(
      expect.objectContaining({ client: 'unknown', clientVersion: 'unknown', count: 2, inputs: expect.arrayContaining(['Query.modelVersion.model!', 'Query.modelVersion.version!']) }),
    );
  });

  test("a document's requests counted by the inputs each gave: a null or left-out variable gives none, an input object's fields and enum values count", async () => {
    const client = { name: 'pager', version: '1' };
    // Scalar variables only (what was given decides), then an input object's (its value is walked).
    const page = 'query Page($first: Int, $after: String) { records(first: $first, after: $after) { totalCount } }';
    const ordered = 'query Ordered($order: [RecordOrder!]) { records(orderBy: $order) { totalCount } }';
    const sent: Array<[string, Record<string, unknown>]> = [
      [page, { first: 5 }],
      [page, { first: 5, after: null }],
      [page, {}],
      [page, { first: 5 }],
      [ordered, { order: [{ field: 'CREATED_AT', direction: 'DESC' }] }],
      [ordered, { order: null }],
    ];
    for (const [query, variables] of sent) expect((await graphql(sut, query, client, variables)).status).toBe(200);

    const usage = await eventually(async () => {
      const read = await usageExport(sut);
      return requestsOf(read, 'pager') === sent.length ? read : null;
    });
    expect(usage).not.toBeNull();
    const countsOf = (name: string) => {
      const hash = usage!.operations.find((o) => o.name === name)?.hash;
      return usage!.counts.filter((c) => c.client === 'pager' && c.hash === hash).map(({ inputs, count }) => ({ inputs, count }));
    };
    expect(countsOf('Page')).toHaveLength(2);
    expect(countsOf('Page')).toEqual(
      expect.arrayContaining([
        { inputs: ['Query.records.first!'], count: 3 },
        { inputs: [], count: 1 },
      ]),
    );
    expect(countsOf('Ordered')).toHaveLength(2);
    expect(countsOf('Ordered')).toEqual(
      expect.arrayContaining([
        { inputs: [], count: 1 },
        {
          inputs: ['OrderDirection.DESC', 'Query.records.orderBy!', 'RecordField.CREATED_AT', 'RecordOrder.direction', 'RecordOrder.direction!', 'RecordOrder.field', 'RecordOrder.field!'],
          count: 1,
        },
      ]),
    );
  });
});

const describePostgres = (await postgresReachable()) ? describe : describe.skip;

describePostgres('a database outage while traffic flows', () => {
  let sut: TestSystem;
  let proxy: TcpProxy;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createDatabase('postgresql');
    const target = new URL(database.url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    sut = await startTestSystem({ ...ENV, DATABASE_URL: target.toString() });
  });
  afterAll(async () => {
    await sut?.stop();
    await proxy?.up();
    await database?.drop();
  });

  test('every request answered 200, at most one batch per process lost, usage written again once the database is back', async () => {
    const client = { name: 'through-outage', version: '1' };
    const answers: Array<{ status: number; errors?: unknown[] }> = [];
    const send = async () => {
      const { status, body } = await graphql(sut, 'query Count { modelVersionCount }', client);
      answers.push({ status, errors: body.errors });
    };
    for (let i = 0; i < 5; i += 1) await send();
    expect(await eventually(async () => requestsOf(await usageExport(sut), client.name) === 5)).toBe(true);

    const dropLines = () => sut.logs.filter((line) => String(line.msg).startsWith('usage reporting: a batch could not be written'));
    const traffic = loadLoop(send, 2);
    await proxy.down();
    // Each worker that counted something since its last write tries to write it, fails and drops that batch.
    expect(await eventually(() => dropLines().length >= 1)).toBe(true);
    // Several more flush intervals of counting while the database is away.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await proxy.up();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await traffic.stop();

    expect(answers.filter((a) => a.status !== 200 || a.errors)).toEqual([]);
    const perProcess = new Map<number, number>();
    for (const line of dropLines()) perProcess.set(line.pid, (perProcess.get(line.pid) ?? 0) + 1);
    expect([...perProcess.values()].every((lines) => lines === 1)).toBe(true);
    const lost = dropLines().reduce((sum, line) => sum + line.requests, 0);
    // What was not dropped is written once the database answers again: every worker's, within a few flushes.
    const written = await eventually(async () => {
      const counted = requestsOf(await usageExport(sut), client.name);
      return counted === answers.length - lost ? counted : null;
    });
    expect({ written, lost, sent: answers.length }).toEqual({ written: answers.length - lost, lost, sent: answers.length });
  }, 60_000);
});
