import type { ArtifactHost } from '../support/artifact-host.js';
import { miniModelHost } from '../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startTestSystem } from '../support/system.js';
import { type TestDatabase, createDatabase, onDatabase, postgresReachable } from '../subgraphs/models/store/support.js';
import { eventually } from '../support/load-loop.js';

/**
 * Issue "Every request within a budget", announcements that cannot be forged into work: any role
 * of the records database may `NOTIFY cerise_registry_refreshed`. Before, 40 forged revisions in
 * 10 s made 40 full refreshes (catalog and every artifact) on every replica. A replica follows only
 * the newest revision a replica recorded when it announced, once.
 */
const describePostgres = (await postgresReachable()) ? describe : describe.skip;

describePostgres('forged announcements on PostgreSQL (two replicas on one database)', () => {
  let host: ArtifactHost;
  let catalog: unknown[];
  let database: TestDatabase;
  let replica: TestSystem;
  let other: TestSystem;

  beforeAll(async () => {
    const mini = await miniModelHost();
    host = mini.host;
    catalog = mini.catalog;
    database = await createDatabase('postgresql');
    replica = await startTestSystem({ ...NO_AUTH, ...mini.env, DATABASE_URL: database.url });
    other = await startTestSystem({ ...NO_AUTH, ...mini.env, DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await replica?.stop();
    await other?.stop();
    await database?.drop();
    await host?.stop();
  });

  const revisionOf = async (sut: TestSystem) => (await call(sut.url('core'), 'GET', '/admin/status')).json.registry.catalog_revision;
  const notify = (payload: string) => onDatabase('postgresql', database.url, `SELECT pg_notify('cerise_registry_refreshed', '${payload}')`);
  /** Every refresh fetches every artifact (a catalog poll fetches the catalog only). */
  const artifactFetches = () => host.hits.get('/mini/1.0/schema.json') ?? 0;

  /** The revision each worker of `sut` serves, asked on connections of their own (the primary hands them round). */
  const revisionsOfEveryWorker = async (sut: TestSystem) =>
    Promise.all(Array.from({ length: 6 }, async () => (await callOnNewConnection(sut.url('core'), 'GET', '/admin/status')).json.registry.catalog_revision));
  /**
   * The other replica refreshes to a new catalog and announces it; once every worker of this replica
   * serves it, every NOTIFY sent before that announcement has been heard (a session hears them in order).
   */
  async function realAnnouncement(label: string): Promise<void> {
    host.serve('/catalog.json', JSON.stringify(catalog.map((entry) => ({ ...(entry as object), label }))));
    expect((await call(other.url('core'), 'POST', '/admin/registry/refresh')).status).toBe(200);
    const announced = await revisionOf(other);
    expect(await eventually(async () => (await revisionsOfEveryWorker(replica)).every((revision) => revision === announced))).toBe(true);
  }

  test('a storm of NOTIFYs naming revisions no replica recorded causes no refresh', async () => {
    const hits = artifactFetches();
    for (let n = 0; n < 40; n++) await notify(`bogus-${n}`);
    await realAnnouncement('after the storm');
    // The other replica's refresh and this replica's following of it: nothing for the storm.
    expect(artifactFetches() - hits).toBe(2);
  });

  test('the newest recorded revision sent again and again: both serve it already, so nothing is fetched', async () => {
    const newest = await revisionOf(replica);
    expect(await onDatabase('postgresql', database.url, 'SELECT revision FROM registry_revisions ORDER BY announced_at DESC LIMIT 1')).toEqual([{ revision: newest }]);
    const hits = artifactFetches();
    for (let n = 0; n < 40; n++) await notify(newest);
    await realAnnouncement('after the replays');
    expect(artifactFetches() - hits).toBe(2);
  });
});
