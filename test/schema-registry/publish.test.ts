import { miniModelHost } from '../support/mini-model.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { NO_AUTH, STORES, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { type Backend, type TestDatabase, createDatabase } from '../subgraphs/models/store/support.js';
import { GREETINGS_SDL, printedSdl, run, sdlFolder, versionRows, withoutLabel } from './support.js';

/**
 * Issue 38, items 1 and 2: a team publishes to the schema registry in the records database, on
 * SQLite and on PostgreSQL, as `npm run schema:publish` runs (its `runSchemaPublish` in this
 * process: publish-refusals.test.ts and concurrent-publishes.test.ts run the command line), one
 * database per store shared by the steps in their natural order: the first publish (a subgraph from
 * the code, the others from the code too, said so), a breaking change a REST route uses forced past
 * its refusal with a reason, a subgraph of another repository with its file and routing URL, a
 * rollback to the first version; then the gateway, started on that database in this process (the
 * versions' paths are a door: versions-endpoint.test.ts), lists and returns them.
 */
const COMMIT = '0123456789abcdef0123456789abcdef01234567';
const REASON = 'GET /models moves to the label-less v2 contract, agreed with every client';
const GREETINGS_URL = 'http://greetings.internal:4001/graphql';

describe.each(STORES)('publish, versions and rollback on %s', (backend: Backend) => {
  let database: TestDatabase;
  const files = sdlFolder();
  const publish = (args: string[]) => run('schema-publish', args, { DATABASE_URL: database.url, SCHEMA_PUBLISH_AUTHOR: 'ci-bot', GITHUB_SHA: COMMIT });
  let firstHash: string;

  beforeAll(async () => {
    database = await createDatabase(backend);
    stopAtScopeEnd(() => database.drop());
  });

  test('the first publish: models from the code, on an empty registry the others from the code too', async () => {
    const { code, stdout, stderr } = await publish(['--subgraph', 'models']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain("schema:publish: the registry is empty: the other subgraphs are this repository's code, the baseline gateway/supergraph.graphql");
    firstHash = /published version 1 \(([0-9a-f]{16})\) of models against gateway\/supergraph\.graphql \(the registry is empty\): 0 API changes/.exec(stdout)![1]!;
    expect(await versionRows(backend, database.url)).toEqual([{ id: 1, subgraph: 'models', forced_reason: null, rollback_of: null, author: 'ci-bot', commit: COMMIT }]);
  });

  test('a field a REST route uses, removed: the refusal names the route; --force REASON publishes it, the reason kept', async () => {
    const file = files.write('models.graphql', withoutLabel(await printedSdl('models')));
    const { code, stdout } = await publish(['--subgraph', `models=${file}`, '--force', REASON]);
    expect(code).toBe(0);
    expect(stdout).toContain('  BREAKING FIELD_REMOVED ModelVersion.label');
    expect(stdout).toContain('  core GET /models: Cannot query field "label" on type "ModelVersion".');
    expect(stdout).toMatch(
      new RegExp(`published version 2 \\([0-9a-f]{16}\\) of models against registry version 1 \\(${firstHash}\\), FORCED past the refusal above: ${REASON}: 1 API changes \\(1 breaking`),
    );
    expect((await versionRows(backend, database.url))[1]).toEqual({ id: 2, subgraph: 'models', forced_reason: REASON, rollback_of: null, author: 'ci-bot', commit: COMMIT });
  });

  test("a subgraph of another repository: its SDL file and routing URL, composed with the others' published versions", async () => {
    const file = files.write('greetings.graphql', GREETINGS_SDL);
    const { code, stdout, stderr } = await publish(['--subgraph', `greetings=${file}`, '--url', GREETINGS_URL, '--commit', 'fedcba9']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // Version 2's forced breakage is not this publish's doing: said, not refused.
    expect(stdout).toMatch(/^schema:publish: warning: 6 known documents do not validate, as against registry version 2 \([0-9a-f]{16}\) \(a forced version\)/m);
    expect(stdout).toMatch(/^schema:publish: published version 3 \([0-9a-f]{16}\) of greetings against registry version 2 \([0-9a-f]{16}\): \d+ API changes \(0 breaking/m);
    expect((await versionRows(backend, database.url))[2]).toEqual(expect.objectContaining({ id: 3, subgraph: 'greetings', commit: 'fedcba9' }));
  });

  test("a rollback publishes version 1's subgraphs again as version 4, checked against version 3", async () => {
    const { code, stdout, stderr } = await publish(['--rollback-to', '1']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // The label comes back; the greeting goes, which nothing used (the usage in DATABASE_URL has no request of it).
    expect(stdout).toContain(`schema:publish: published version 4 (${firstHash}), a rollback to version 1, against registry version 3`);
    expect(stdout).toContain('  UNUSED FIELD_REMOVED Query.greeting');
    expect((await versionRows(backend, database.url))[3]).toEqual(expect.objectContaining({ id: 4, subgraph: null, rollback_of: 1 }));
  });

  describe('the gateway on that database', () => {
    let sut: TestSystem;
    beforeAll(async () => {
      const mini = await miniModelHost();
      sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env, DATABASE_URL: database.url });
    });

    test('GET /admin/supergraph/versions: newest first, each with its changelog, a page at a time', async () => {
      const all = await call(sut.url('gateway'), 'GET', '/admin/supergraph/versions');
      expect(all.status).toBe(200);
      const { versions, next } = all.json;
      expect(next).toBeNull();
      expect(versions.map((v: { id: number }) => v.id)).toEqual([4, 3, 2, 1]);
      expect(versions[3]).toEqual({
        id: 1,
        hash: firstHash,
        subgraph: 'models',
        subgraphNames: ['models', 'indicators', 'impact'],
        author: 'ci-bot',
        commit: COMMIT,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        forcedReason: null,
        rollbackOf: null,
        changelog: [],
      });
      expect(versions[2]).toEqual(expect.objectContaining({ id: 2, forcedReason: REASON }));
      expect(versions[2].changelog).toEqual([expect.objectContaining({ type: 'FIELD_REMOVED', path: 'ModelVersion.label', verdict: 'breaking' })]);
      expect(versions[1]).toEqual(expect.objectContaining({ id: 3, subgraph: 'greetings', subgraphNames: ['models', 'indicators', 'impact', 'greetings'] }));
      expect(versions[0]).toEqual(expect.objectContaining({ id: 4, hash: firstHash, subgraph: null, rollbackOf: 1, subgraphNames: ['models', 'indicators', 'impact'] }));

      const first = await call(sut.url('gateway'), 'GET', '/admin/supergraph/versions?limit=3');
      expect(first.json.versions.map((v: { id: number }) => v.id)).toEqual([4, 3, 2]);
      const second = await call(sut.url('gateway'), 'GET', `/admin/supergraph/versions?limit=3&cursor=${first.json.next}`);
      expect(second.json).toEqual({ versions: [expect.objectContaining({ id: 1 })], next: null });
    });

    test('GET /admin/supergraph/versions/{id}: one version with its supergraph and subgraphs; an unknown one 404', async () => {
      const third = await call(sut.url('gateway'), 'GET', '/admin/supergraph/versions/3');
      expect(third.status).toBe(200);
      expect(third.json.supergraphSdl).toContain('greeting(name: String!): String!');
      expect(third.json.subgraphs.map((s: { name: string; url: string | null }) => [s.name, s.url])).toEqual([
        ['models', null],
        ['indicators', null],
        ['impact', null],
        ['greetings', GREETINGS_URL],
      ]);
      expect(third.json.subgraphs[3].sdl).toBe(GREETINGS_SDL);

      const unknown = await call(sut.url('gateway'), 'GET', '/admin/supergraph/versions/99');
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ errors: [{ message: 'the registry has no version 99', extensions: expect.objectContaining({ code: 'NOT_FOUND' }) }] });
    });
  });
});
