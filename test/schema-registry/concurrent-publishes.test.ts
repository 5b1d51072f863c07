import { DEFAULT_DATABASE_LIMITS } from '../../database/limits.js';
import { openRegistry } from '../../gateway/schema-registry/open-registry.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { type TestDatabase, createDatabase, postgresReachable } from '../subgraphs/models/store/support.js';
import { GREETINGS_SDL, runCommandLine, sdlFolder } from './support.js';

/**
 * Issue 38, item 1: two teams publish at once to one PostgreSQL registry, two `npm run
 * schema:publish` processes started together, each adding a subgraph of its own. Both land,
 * numbered one after the other, and the second is composed and checked against the first: the
 * newest version holds both subgraphs.
 */
const FAREWELLS_SDL = GREETINGS_SDL.replace('greeting(name: String!): String!', 'farewell(name: String!): String!');

((await postgresReachable()) ? describe : describe.skip)('two publishes at once on postgresql', () => {
  let database: TestDatabase;
  const files = sdlFolder();

  beforeAll(async () => {
    database = await createDatabase('postgresql');
    stopAtScopeEnd(() => database.drop());
  });

  test('both land, one after the other, the second composed with the first', async () => {
    const publish = (name: string, sdl: string) =>
      runCommandLine('schema-publish', ['--subgraph', `${name}=${files.write(`${name}.graphql`, sdl)}`, '--url', `http://${name}.internal/graphql`], { DATABASE_URL: database.url });
    const outcomes = await Promise.all([publish('greetings', GREETINGS_SDL), publish('farewells', FAREWELLS_SDL)]);
    expect(outcomes.map((o) => ({ code: o.code, stderr: o.stderr }))).toEqual([
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
    ]);
    const lines = outcomes.map((o) => /^schema:publish: published version (\d) \([0-9a-f]{16}\) of (\w+) against (.*?): /m.exec(o.stdout)!.slice(1));
    const [first, second] = lines.sort(([a], [b]) => Number(a) - Number(b)) as [string[], string[]];
    expect(first).toEqual(['1', expect.any(String), 'gateway/supergraph.graphql (the registry is empty)']);
    expect(second).toEqual(['2', expect.any(String), expect.stringMatching(/^registry version 1 \([0-9a-f]{16}\)$/)]);

    const registry = await openRegistry(database.url, DEFAULT_DATABASE_LIMITS);
    stopAtScopeEnd(() => registry.close());
    const newest = await registry.versions.newest();
    expect(newest?.id).toBe(2);
    expect(newest?.subgraphs.map((s) => [s.name, s.url])).toEqual([
      ['models', null],
      ['indicators', null],
      ['impact', null],
      [first[1], `http://${first[1]}.internal/graphql`],
      [second[1], `http://${second[1]}.internal/graphql`],
    ]);
    expect(newest?.supergraphSdl).toMatch(/greeting\(name: String!\): String![^]*farewell\(name: String!\): String!|farewell\(name: String!\): String![^]*greeting\(name: String!\): String!/);
  });
});
