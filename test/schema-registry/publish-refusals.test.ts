import { DEFAULT_DATABASE_LIMITS } from '../../database/limits.js';
import { openRegistry } from '../../gateway/schema-registry/open-registry.js';
import { clientUse } from '../../server/schema-check.js';
import { MAX_SDL_BYTES } from '../../server/schema-check/given-subgraphs.js';
import { publishSubgraph } from '../../server/schema-publish/publish.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { type TestDatabase, createDatabase } from '../subgraphs/models/store/support.js';
import { GREETINGS_SDL, type Run, printedSdl, run, runCommandLine, sdlFolder, versionRows, withoutLabel } from './support.js';

/**
 * Issue 38, items 1 and 4: what a publish refuses, and what a careless or hostile command line gets,
 * on one SQLite registry holding one version (published from code, as a program would): a change
 * a REST route depends on (exit 1, the route named, nothing written), subgraphs that do not compose
 * (refused even with --force), the same supergraph again (unchanged), schema:check --registry, and
 * inputs that cannot run (exit 2, the cause named, no credential repeated, nothing written).
 * The commands run in this process (`run`), but for two as the npm script runs them: the refusal
 * (exit 1 as a user sees it) and the registry that cannot be reached (exit 2, the process ending
 * with nothing open).
 */
let database: TestDatabase;
const files = sdlFolder();
let modelsSdl: string;
const publish = (args: string[], env: Record<string, string> = {}) => run('schema-publish', args, { DATABASE_URL: database.url, ...env });
const publishCommand = (args: string[], env: Record<string, string> = {}) => runCommandLine('schema-publish', args, { DATABASE_URL: database.url, ...env });
const rows = () => versionRows('sqlite', database.url);

beforeAll(async () => {
  database = await createDatabase('sqlite');
  stopAtScopeEnd(() => database.drop());
  modelsSdl = await printedSdl('models');
});

test('publishSubgraph, called from code: the first version, the code subgraphs with no routing URL', async () => {
  const registry = await openRegistry(database.url, DEFAULT_DATABASE_LIMITS);
  stopAtScopeEnd(() => registry.close());
  const outcome = await publishSubgraph(registry.versions, { name: 'models', author: 'a program', commit: null }, await clientUse(undefined, database.url));
  expect(outcome).toMatchObject({
    outcome: 'published',
    previous: undefined,
    version: { id: 1, subgraph: 'models', author: 'a program', forcedReason: null, rollbackOf: null, changelog: [] },
    report: { compositionErrors: [], routeErrors: [], baseline: 'gateway/supergraph.graphql (the registry is empty)' },
  });
  if (outcome.outcome !== 'published') return;
  expect(outcome.version.subgraphs.map((s) => [s.name, s.url, s.sdl === modelsSdl.trimEnd() || s.sdl === modelsSdl])).toEqual([
    ['models', null, true],
    ['indicators', null, false],
    ['impact', null, false],
  ]);
});

test('a field a REST route uses, removed: exit 1, the report of schema:check naming the route, nothing written', async () => {
  const file = files.write('no-label.graphql', withoutLabel(modelsSdl));
  const { code, stdout, stderr } = await publishCommand(['--subgraph', `models=${file}`], { GITHUB_ACTIONS: 'true' });
  expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
  expect(stdout).toContain('API changes against the baseline (registry version 1 (');
  expect(stdout).toContain('  BREAKING FIELD_REMOVED ModelVersion.label');
  expect(stdout).toContain('    deployed: rest-facade core GET /models');
  expect(stdout).toContain('  core GET /models: Cannot query field "label" on type "ModelVersion".');
  expect(stdout).toContain('::error title=schema:check document does not validate::core GET /models: Cannot query field "label"');
  expect(stdout.trimEnd().split('\n').at(-1)).toBe('schema:publish: refused: nothing written (--force REASON publishes anyway)');
  expect(await rows()).toHaveLength(1);
});

test('subgraphs that do not compose: refused, even with --force, nothing written', async () => {
  const keyed = '@key(fields: "model version")';
  const at = modelsSdl.indexOf(keyed, modelsSdl.indexOf('type ModelVersion'));
  const file = files.write('bad-key.graphql', `${modelsSdl.slice(0, at)}@key(fields: "model nothing")${modelsSdl.slice(at + keyed.length)}`);
  const { code, stdout } = await publish(['--subgraph', `models=${file}`, '--force', 'we know better']);
  expect(code).toBe(1);
  expect(stdout).toMatch(/^composition of models, indicators, impact: FAILED by @apollo\/composition$/m);
  expect(stdout.trimEnd().split('\n').at(-1)).toBe('schema:publish: refused: the subgraphs do not compose; nothing written (--force cannot publish what does not compose)');
  expect(await rows()).toHaveLength(1);
});

test('the same supergraph again: unchanged, exit 0, nothing written', async () => {
  const { code, stdout, stderr } = await publish(['--subgraph', 'models']);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toMatch(/^schema:publish: unchanged: the supergraph and routing URLs are those of registry version 1 \([0-9a-f]{16}\); nothing written$/m);
  expect(await rows()).toHaveLength(1);
});

test("schema:check --registry: the newest version is the baseline, a subgraph's file composes with the published others", async () => {
  const check = (args: string[]) => run('schema-check', ['--registry', ...args], { DATABASE_URL: database.url });
  const [breaking, added, twoBaselines] = await Promise.all([
    check(['--subgraph', `models=${files.write('check-no-label.graphql', withoutLabel(modelsSdl))}`]),
    check(['--subgraph', `greetings=${files.write('check-greetings.graphql', GREETINGS_SDL)}`]),
    check(['--baseline-git', 'HEAD']),
  ]);
  expect(twoBaselines).toEqual({ code: 2, stdout: '', stderr: 'schema:check could not run: --registry is the baseline: leave out --baseline, --baseline-url and --baseline-git\n' });
  expect(breaking.code).toBe(1);
  expect(breaking.stdout).toContain('API changes against the baseline (registry version 1 (');
  expect(breaking.stdout).toContain('  core GET /models: Cannot query field "label" on type "ModelVersion".');
  expect({ code: added.code, stderr: added.stderr }).toEqual({ code: 0, stderr: '' });
  expect(added.stdout).toMatch(/^schema:check: ok: \d+ API changes against registry version 1 \([0-9a-f]{16}\) /);
});

describe('what cannot run: exit 2, the cause named, nothing written', () => {
  const cannotRun = (run: Run, message: string | RegExp) => {
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(typeof message === 'string' ? `schema:publish could not run: ${message}` : message);
  };

  test('an unreadable, oversize, endless, garbled or unnamed SDL file, a --force without a reason, a URL with credentials, a new subgraph without its URL', async () => {
    const oversize = files.write('oversize.graphql', `type Query { a: String }\n${'#'.repeat(MAX_SDL_BYTES)}`);
    const garbled = files.write('garbled.graphql', 'type Query {{ nope');
    const greetings = files.write('greetings.graphql', GREETINGS_SDL);
    const missing = `${oversize}.absent`;
    const [unreadable, big, endless, garbage, noReason, blankReason, credentials, noUrl, badName, twoSubgraphs, badCommit, none] = await Promise.all([
      publish(['--subgraph', `models=${missing}`]),
      publish(['--subgraph', `models=${oversize}`]),
      publish(['--subgraph', 'models=/dev/zero']),
      publish(['--subgraph', `models=${garbled}`]),
      publish(['--subgraph', 'models', '--force']),
      publish(['--subgraph', 'models', '--force', '  ']),
      publish(['--subgraph', `greetings=${greetings}`, '--url', 'https://publisher:hunter2@greetings.example.org/graphql']),
      publish(['--subgraph', `greetings=${greetings}`]),
      publish(['--subgraph', `../greetings=${greetings}`]),
      publish(['--subgraph', 'models', '--subgraph', 'impact']),
      publish(['--subgraph', 'models', '--commit', 'main; rm -rf /']),
      publish([]),
    ]);
    cannotRun(unreadable, `--subgraph models=${missing}: ENOENT: no such file or directory, open '${missing}'`);
    cannotRun(big, `--subgraph models=${oversize}: more than the ${MAX_SDL_BYTES} bytes an SDL file may have`);
    cannotRun(endless, `--subgraph models=/dev/zero: more than the ${MAX_SDL_BYTES} bytes an SDL file may have`);
    cannotRun(garbage, `--subgraph models=${garbled}: not GraphQL SDL: Syntax Error: Expected Name, found "{". (line 1, column 13)`);
    cannotRun(noReason, "Option '--force <value>' argument missing; --help lists the options");
    cannotRun(blankReason, '--force needs a reason, up to 1000 characters');
    cannotRun(credentials, '--url must be an http or https URL of at most 2048 characters, without user:password@');
    expect(credentials.stderr).not.toContain('hunter2');
    cannotRun(noUrl, `greetings is a new subgraph (published ones: models, indicators, impact): give its SDL file (--subgraph greetings=FILE) and its --url`);
    cannotRun(badName, /--subgraph \.\.\/greetings=.*: expected <name>\[=<file>\], a name of letters, digits, _ and -/);
    cannotRun(twoSubgraphs, 'expected one --subgraph NAME[=FILE] (or --rollback-to ID); --help lists the options');
    cannotRun(badCommit, '--commit must be a commit SHA (7 to 64 hex digits)');
    cannotRun(none, 'expected one --subgraph NAME[=FILE] (or --rollback-to ID); --help lists the options');
    expect(await rows()).toHaveLength(1);
  });

  test('a rollback to no version, or to what is not an id; a registry that cannot be reached, its password never shown', async () => {
    const [unknown, huge, negative, text, unreachable] = await Promise.all([
      publish(['--rollback-to', '42']),
      publish(['--rollback-to', '99999999999']),
      publish(['--rollback-to=-1']),
      publish(['--rollback-to', '1e3']),
      publishCommand(['--subgraph', 'models'], { DATABASE_URL: 'postgresql://publisher:hunter2@127.0.0.1:1/registry' }),
    ]);
    cannotRun(unknown, '--rollback-to 42: the registry has no version 42');
    for (const refused of [huge, negative, text]) cannotRun(refused, '--rollback-to must be a version id, a whole number from 1 to 999999999');
    cannotRun(unreachable, /^schema:publish could not run: the registry in DATABASE_URL \(postgresql postgresql:\/\/127\.0\.0\.1:1\/registry\) cannot be opened: .*ECONNREFUSED/);
    expect(unreachable.stderr).not.toContain('hunter2');
    expect(await rows()).toHaveLength(1);
  });
});
