import { pathToFileURL } from 'node:url';
import { projectPath } from '../../kernel/project.js';
import { readUsage } from '../../server/schema-check/sources.js';
import type { UsageExport } from '../../gateway/usage/usage-store.js';
import { eventually } from '../support/load-loop.js';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../support/system.js';
import { type Backend, type TestDatabase, backendsUnderTest, createDatabase, onDatabase } from '../subgraphs/models/store/support.js';

/**
 * Issue 35, row 5: the usage tables are bounded per day. Distinct operations, distinct clients and
 * count rows past their daily caps (USAGE_MAX_OPERATIONS_PER_DAY, USAGE_MAX_CLIENTS_PER_DAY,
 * USAGE_MAX_ROWS_PER_DAY: the settings under test, lowered so that a few dozen requests reach them)
 * are counted under `other`: no request is lost, the tables stop growing, each process logs one
 * warning line per cap and day however many requests follow, and `usage_capped_requests_total`
 * shows it. Before, 30,000 client names made 30,000 rows in 25 s, and nothing said so.
 * USAGE_FLUSH_SECS is 1: flushing is what the test waits on.
 */
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
const CAPS = { operations: 10, clients: 4, rows: 30 };
const OPERATIONS = 25;
const CLIENTS = 12;
/** 16 choices of given variables: 16 rows of one operation and client. */
const PAGE = 'query Paged($f: Int, $a: String, $l: Int, $b: String) { records(first: $f, after: $a, last: $l, before: $b) { totalCount } }';

describe.each(await backendsUnderTest())('usage past its daily caps, on %s', (backend: Backend) => {
  let database: TestDatabase;
  let sut: TestSystem;
  let sent = 0;

  beforeAll(async () => {
    database = await createDatabase(backend);
    sut = await startTestSystem({
      ...NO_AUTH,
      REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: SAMPLE }]),
      REGISTRY_ALLOW_FILE_URLS: 'true',
      DATABASE_URL: database.url,
      USAGE_FLUSH_SECS: '1',
      METRICS_ENABLED: 'true',
      USAGE_MAX_OPERATIONS_PER_DAY: String(CAPS.operations),
      USAGE_MAX_CLIENTS_PER_DAY: String(CAPS.clients),
      USAGE_MAX_ROWS_PER_DAY: String(CAPS.rows),
    });
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
  });

  const send = async (client: string, query: string, variables: Record<string, unknown> = {}) => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables }, headers: { 'graphql-client-name': client, 'graphql-client-version': '1' } });
    expect(answer.status).toBe(200);
    sent += 1;
  };
  const total = (usage: UsageExport) => usage.counts.reduce((sum, c) => sum + c.count, 0);
  /** Every request sent so far written (the other worker's within a flush or two). */
  const written = async () => {
    const usage = await eventually(async () => {
      const read = (await readUsage({ usageUrl: sut.url('gateway'), days: 1 }))!.usage;
      return total(read) === sent ? read : null;
    });
    expect(usage).not.toBeNull();
    return usage!;
  };
  const capLines = (cap: string) => sut.logs.filter((line) => String(line.msg).startsWith('usage reporting: a daily cap is reached') && line.cap === cap);

  const choices = Array.from({ length: 16 }, (_, bits) => ({ f: bits & 1 ? 1 : null, a: bits & 2 ? 'x' : null, l: bits & 4 ? 1 : null, b: bits & 8 ? 'y' : null }));
  /** Count rows but those of `other` operations (at most one per client and day, whichever cap sent them). */
  const ownRows = async () => Number((await onDatabase(backend, database.url, "SELECT count(*) AS n FROM usage_counts WHERE hash NOT LIKE 'other:%'"))[0]!.n);

  test('operations past the cap are counted under `other`, with what they touched', async () => {
    // Written in turns, so that which operations come first is known.
    for (const variables of choices) await send('app', PAGE, variables);
    await written();
    await send('app', 'query Op0 { modelVersionCount }');
    await written();
    for (let i = 1; i < OPERATIONS; i++) await send('app', `query Op${i} { modelVersionCount }`);
    await send('app', 'query Late { modelVersions { model } }');
    const usage = await written();
    const own = usage.operations.filter((o) => o.type !== 'other');
    expect(own).toHaveLength(CAPS.operations);
    const other = usage.operations.filter((o) => o.type === 'other');
    expect(other).toHaveLength(1);
    expect(other[0]!.body).toBe('');
    const requestsOf = (hashes: string[]) => usage.counts.filter((c) => hashes.includes(c.hash)).reduce((sum, c) => sum + c.count, 0);
    expect(requestsOf([other[0]!.hash])).toBeGreaterThan(0);
    expect(requestsOf(own.map((o) => o.hash)) + requestsOf([other[0]!.hash])).toBe(sent);
    // A check still sees what the operations beyond the cap used.
    expect(other[0]!.coordinates).toEqual(expect.arrayContaining(['Query.modelVersionCount', 'Query.modelVersions', 'ModelVersion.model']));
    expect(await eventually(() => capLines('operations').length > 0)).toBe(true);
  });

  test('clients past the cap are counted as client `other`', async () => {
    for (let i = 0; i < CLIENTS; i++) await send(`client-${i}`, 'query Op0 { modelVersionCount }');
    const usage = await written();
    const clients = new Set(usage.counts.map((c) => `${c.client} ${c.clientVersion}`));
    expect(clients.has('other other')).toBe(true);
    clients.delete('other other');
    expect(clients.size).toBe(CAPS.clients);
    expect(await eventually(() => capLines('clients').length > 0)).toBe(true);
  });

  test('count rows past the cap are counted under `other`, and the tables stop growing', async () => {
    // A client within the cap, with inputs it has not given yet: new rows.
    const admitted = (await written()).counts.find((c) => c.client.startsWith('client-'))!.client;
    for (const variables of choices) await send(admitted, PAGE, variables);
    await written();
    expect(await ownRows()).toBe(CAPS.rows);
    expect(await eventually(() => capLines('rows').length > 0)).toBe(true);

    // More of everything: nothing lost, no new row of our own, no second warning line from any process.
    for (let i = 0; i < 20; i++) await send(`late-${i}`, `query More${i} { modelVersionCount }`);
    for (const variables of choices) await send('app', PAGE, variables);
    await written();
    expect(await ownRows()).toBe(CAPS.rows);
    const all = Number((await onDatabase(backend, database.url, 'SELECT count(*) AS n FROM usage_counts'))[0]!.n);
    expect(all).toBeLessThanOrEqual(CAPS.rows + CAPS.clients + 1);
    for (const cap of ['operations', 'clients', 'rows']) {
      const perProcess = new Map<number, number>();
      for (const line of capLines(cap)) perProcess.set(line.pid, (perProcess.get(line.pid) ?? 0) + 1);
      expect([...perProcess.values()].every((lines) => lines === 1)).toBe(true);
    }
  });

  test('the metric counts the requests each cap sent to `other`', async () => {
    const metrics = await call(sut.url('core'), 'GET', '/admin/metrics');
    expect(metrics.status).toBe(200);
    for (const cap of ['operations', 'clients', 'rows']) expect(metrics.text).toMatch(new RegExp(`^usage_capped_requests_total\\{cap="${cap}"\\} [1-9]\\d*$`, 'm'));
  });
});
