import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectPath } from '../../kernel/project.js';
import type { CommandOutput } from '../../server/command-output.js';
import { runSchemaCheck } from '../../server/schema-check.js';
import { runSchemaPrint } from '../../server/schema-print.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { freePort } from '../support/ports.js';
import { silentPeer } from '../support/silent-peer.js';

/**
 * The command line of `npm run schema:check` and `npm run schema:print`: `--help`, the gateway URLs
 * it asks (a real HTTP server on the loopback records what), what a failure says, its GitHub Actions
 * output, the passing line. A proposed subgraph is a file printed by schema:print and edited. Each
 * command is its `run…` function with the arguments, environment and output the command line gives
 * it (server/schema-check.ts, server/schema-print.ts), run in this process; a few cases run the
 * commands as the npm scripts do, on this tree's own build (`npm test` builds first), for the exit
 * codes and output as users see them (schema-check-cli.test.ts runs the passing and the breaking one).
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment the commands see: this one's, without the variables the tests set or that would change a check's sources. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'GITHUB_BASE_REF', 'SCHEMA_CHECK_TOKEN'].includes(k)));
  return { ...inherited, ...env };
}

/** `node dist/server/<script>.js ARGS`, as the npm script runs it. */
function runCommand(script: 'schema-check' | 'schema-print', args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [projectPath('dist', 'server', `${script}.js`), ...args], { cwd: projectPath(), env: environment(env), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** The command's lines as its standard output and error would hold them. */
async function collected(command: (output: CommandOutput) => Promise<number>): Promise<Run> {
  const run = { stdout: '', stderr: '' };
  const code = await command({ out: (line) => (run.stdout += `${line}\n`), err: (line) => (run.stderr += `${line}\n`) });
  return { code, ...run };
}

const schemaCheck = (args: string[], env: Record<string, string> = {}) => collected((output) => runSchemaCheck(args, environment(env), output));
const schemaPrint = (args: string[]) => collected((output) => runSchemaPrint(args, output));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'schema-check-options-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run schema:print -- --subgraph NAME`, run once per subgraph for the file (it prints the same every time). */
const prints = new Map<string, Promise<Run>>();

/** The code's SDL of a subgraph, as `npm run schema:print` prints it, edited and written to a file for `--subgraph NAME=FILE`. */
async function printedSubgraph(name: string, edit: (sdl: string) => string = (sdl) => sdl): Promise<{ arg: string; file: string; sdl: string }> {
  if (!prints.has(name)) prints.set(name, schemaPrint(['--subgraph', name]));
  const printed = await prints.get(name)!;
  expect(printed.code).toBe(0);
  const sdl = edit(printed.stdout);
  const file = path.join(dir, `${name}-${Math.random().toString(36).slice(2)}.graphql`);
  writeFileSync(file, sdl);
  return { arg: `${name}=${file}`, file, sdl };
}

/** Replaces `find` in the block of `type NAME`, where it must occur. */
function inType(type: string, find: string | RegExp, replacement: string): (text: string) => string {
  return (text) => {
    const block = new RegExp(`^type ${type}\\b[^]*?^}`, 'm').exec(text)![0];
    const edited = block.replace(find, replacement);
    expect(edited).not.toBe(block);
    return text.replace(block, edited);
  };
}

/** An empty usage export: a source that saw no traffic. */
function noUsageFile(): string {
  const file = path.join(dir, 'no-usage.json');
  writeFileSync(file, JSON.stringify({ format: 'cerise-usage-export', version: 1, from: '2000-01-01', exportedAt: new Date().toISOString(), operations: [], counts: [] }));
  return file;
}

describe('schema:check --help and unknown options', () => {
  test('--help prints one line per option, what it does, and exits 0', async () => {
    const { code, stdout, stderr } = await runCommand('schema-check', ['--help']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const options = stdout.split('\n').flatMap((line) => /^ {2}(?:-h, )?(--[a-z-]+)(?: \S+)? {2,}\S/.exec(line)?.[1] ?? []);
    expect(options).toEqual([
      '--baseline',
      '--baseline-url',
      '--baseline-git',
      '--registry',
      '--usage-url',
      '--usage-file',
      '--days',
      '--threshold',
      '--exclude-client',
      '--timeout',
      '--save-usage',
      '--subgraph',
      '--format',
      '--help',
    ]);
    expect(stdout).toContain('Exit 0 safe, 1 breaking, 2 could not run.');
  });

  test('an unknown option exits 2, naming it and pointing at --help', async () => {
    const { code, stdout, stderr } = await runCommand('schema-check', ['--baseline-ur', 'http://127.0.0.1:1']);
    expect({ code, stdout, stderr }).toEqual({ code: 2, stdout: '', stderr: 'schema:check could not run: unknown option --baseline-ur; --help lists the options\n' });
  });
});

describe('the gateway URLs schema:check asks', () => {
  const asked: Array<{ path: string; authorization?: string }> = [];
  let gateway: string;

  /** A gateway under any prefix: `/ok/…` answers the admin endpoints, `/down/…` 503, `/garbled/…` what is not JSON. */
  function answer(request: IncomingMessage, response: ServerResponse): void {
    asked.push({ path: request.url!, authorization: request.headers.authorization });
    // A check run as users run it is a process of its own, its connections new; here the checks share this process's pool.
    response.setHeader('connection', 'close');
    const [prefix] = request.url!.split('/').slice(1);
    if (prefix === 'down') return void response.writeHead(503).end();
    if (prefix === 'garbled') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"format": ');
    if (request.url!.includes('/admin/supergraph')) return void response.end(readFileSync(projectPath('gateway', 'supergraph.graphql')));
    response.writeHead(200, { 'content-type': 'application/json' }).end(readFileSync(noUsageFile()));
  }

  beforeAll(async () => {
    const server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stopAtScopeEnd(() => new Promise((resolve) => server.close(resolve)));
    gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    asked.length = 0;
  });

  test("a URL's path is kept as the gateway's prefix; a URL ending in the endpoint is used as it is", async () => {
    const prefixed = await schemaCheck(['--baseline-url', `${gateway}/ok/dpp`, '--usage-url', `${gateway}/ok/dpp/`]);
    expect(prefixed).toEqual({ code: 0, stdout: expect.stringMatching(/^schema:check: ok: 0 API changes against the gateway at http:\/\/127\.0\.0\.1:\d+ /), stderr: '' });
    expect(asked.map((a) => a.path).sort()).toEqual(['/ok/dpp/admin/supergraph', '/ok/dpp/admin/usage?days=30']);
    asked.length = 0;
    const endpoints = await schemaCheck(['--baseline-url', `${gateway}/ok/v2/admin/supergraph`, '--usage-url', `${gateway}/ok/v2/admin/usage?tenant=a`, '--days', '7']);
    expect(endpoints.code).toBe(0);
    expect(asked.map((a) => a.path).sort()).toEqual(['/ok/v2/admin/supergraph', '/ok/v2/admin/usage?tenant=a&days=7']);
  });

  test('credentials in a URL go as HTTP Basic authentication; SCHEMA_CHECK_TOKEN, when set, as the bearer token instead', async () => {
    const url = gateway.replace('//', '//ci:pass%20word@');
    expect((await schemaCheck(['--usage-url', `${url}/ok`])).code).toBe(0);
    expect((await schemaCheck(['--usage-url', `${url}/ok`], { SCHEMA_CHECK_TOKEN: 'the-token' })).code).toBe(0);
    expect(asked.map((a) => a.authorization)).toEqual([`Basic ${Buffer.from('ci:pass word').toString('base64')}`, 'Bearer the-token']);
  });

  test('a failure names its option, the URL and its cause: an HTTP status, invalid JSON, a timeout', async () => {
    const down = await schemaCheck(['--baseline-url', `${gateway}/down`]);
    expect(down).toEqual({ code: 2, stdout: '', stderr: `schema:check could not run: --baseline-url ${gateway}/down/admin/supergraph: HTTP 503\n` });
    const garbled = await schemaCheck(['--usage-url', `${gateway}/garbled`]);
    expect(garbled).toEqual({ code: 2, stdout: '', stderr: `schema:check could not run: --usage-url ${gateway}/garbled/admin/usage?days=30: invalid JSON\n` });
    const silent = await silentPeer();
    const hung = await schemaCheck(['--usage-url', silent.url, '--timeout', '1']);
    expect(hung).toEqual({ code: 2, stdout: '', stderr: `schema:check could not run: --usage-url ${silent.url}/admin/usage?days=30: timeout: no answer within 1 s\n` });
  });

  test('a refused connection says ECONNREFUSED, and shows neither the password of the URL nor the token', async () => {
    const port = await freePort();
    const refused = await schemaCheck(['--usage-url', `http://ci:s3cret-pw@127.0.0.1:${port}/dpp`], { SCHEMA_CHECK_TOKEN: 'tok-4711' });
    expect(refused).toEqual({ code: 2, stdout: '', stderr: `schema:check could not run: --usage-url http://127.0.0.1:${port}/dpp/admin/usage?days=30: ECONNREFUSED\n` });
    const json = await schemaCheck(['--usage-url', `http://ci:s3cret-pw@127.0.0.1:${port}/dpp`, '--format', 'json'], { SCHEMA_CHECK_TOKEN: 'tok-4711' });
    expect(json.code).toBe(2);
    for (const output of [refused.stderr, json.stdout]) expect(output).not.toMatch(/s3cret|tok-4711/);
  });
});

describe('on GitHub Actions, a check that cannot run', () => {
  async function onGitHub(args: string[]): Promise<Run & { summary: string }> {
    const summary = path.join(dir, `summary-${Math.random().toString(36).slice(2)}.md`);
    const result = await schemaCheck(args, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    return { ...result, summary: readFileSync(summary, 'utf8') };
  }

  test('a bad option and an unreachable usage URL: an ::error annotation and a step summary saying why', async () => {
    const bad = await onGitHub(['--no-such-option']);
    expect(bad).toEqual({
      code: 2,
      stdout: '::error title=schema:check could not run::schema:check could not run: unknown option --no-such-option; --help lists the options\n',
      stderr: 'schema:check could not run: unknown option --no-such-option; --help lists the options\n',
      summary: '## Schema check: ⚠️ could not run\n\nschema:check could not run: unknown option --no-such-option; --help lists the options\n',
    });
    const port = await freePort();
    const unreachable = await onGitHub(['--usage-url', `http://127.0.0.1:${port}`]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stdout).toBe(`::error title=schema:check could not run::schema:check could not run: --usage-url http://127.0.0.1:${port}/admin/usage?days=30: ECONNREFUSED\n`);
    expect(unreachable.summary).toContain('## Schema check: ⚠️ could not run');
    expect(unreachable.summary).toContain(`--usage-url http://127.0.0.1:${port}/admin/usage?days=30: ECONNREFUSED`);
  });

  test('subgraphs that do not compose: an ::error per composition error and a step summary listing them', async () => {
    const indicators = await printedSubgraph('indicators', (sdl) => `${sdl}\nextend type Query { modelVersionCount: Int! }\n`);
    const { code, stdout, summary } = await onGitHub(['--subgraph', indicators.arg]);
    expect(code).toBe(2);
    expect(stdout).toMatch(/^::error title=schema:check composition INVALID_FIELD_SHARING by @apollo\/composition::Non-shareable field "Query\.modelVersionCount"/m);
    expect(summary).toMatch(/^## Schema check: ⚠️ could not run\n/);
    expect(summary).toMatch(/^- composition by @apollo\/composition: INVALID_FIELD_SHARING: Non-shareable field "Query\.modelVersionCount"/m);
  });
});

describe('schema:check on a proposed subgraph that does not compose', () => {
  test('a field defined with another type in a second subgraph: exit 2 with the error codes, nothing else checked', async () => {
    // ModelVersion is an entity of models and indicators; models has `label: String`.
    const indicators = await printedSubgraph('indicators', inType('ModelVersion', /^ {2}version: String!$/m, '  version: String!\n  label: Int'));
    const { code, stdout } = await schemaCheck(['--subgraph', indicators.arg]);
    expect(code).toBe(2);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('composition of models, indicators, impact: FAILED by @apollo/composition');
    expect(
      lines
        .slice(1)
        .map((l) => /^ {2}([A-Z_]+): /.exec(l)?.[1])
        .sort(),
    ).toEqual(['FIELD_TYPE_MISMATCH', 'INVALID_FIELD_SHARING']);
    expect(stdout).toContain(
      '  FIELD_TYPE_MISMATCH: Type of field "ModelVersion.label" is incompatible across subgraphs: it has type "Int" in subgraph "indicators" but type "String" in subgraph "models"',
    );
    expect(stdout).toMatch(/INVALID_FIELD_SHARING: Non-shareable field "ModelVersion.label" is resolved from multiple subgraphs/);
    // Nothing is diffed, validated or compared once composition fails.
    expect(stdout).not.toMatch(/API changes|operations:|supergraph:/);
  });
});

describe("schema:check on proposed subgraphs The Guild's composition refuses", () => {
  test("an argument of a shareable field with another default in each of two subgraphs: Apollo's composes, The Guild's refuses: exit 2 naming it", async () => {
    const withDefault = (value: number) => inType('Query', 'health: Health! @shareable', `health(depth: Int = ${value}): Health! @shareable`);
    const indicators = await printedSubgraph('indicators', withDefault(1));
    const impact = await printedSubgraph('impact', withDefault(2));
    const { code, stdout } = await schemaCheck(['--subgraph', indicators.arg, '--subgraph', impact.arg]);
    expect({ code, stdout }).toEqual({
      code: 2,
      stdout:
        'composition of models, indicators, impact: FAILED by @theguild/federation-composition\n' +
        '  FIELD_ARGUMENT_DEFAULT_MISMATCH: Argument "Query.health(depth:)" has incompatible default values across subgraphs: it has default value 2 in subgraph "impact" but default value 1 in subgraph "indicators"\n',
    });
  });
});

describe('annotations at the declaration of what changed', () => {
  const github = { GITHUB_ACTIONS: 'true' };

  test('a change in a --subgraph file: file=FILE,line=the line of the field in it', async () => {
    const models = await printedSubgraph('models', inType('RecordOwner', /^ {2}tenant: String$/m, '  tenant: Int'));
    const { code, stdout } = await schemaCheck(['--subgraph', models.arg], github);
    expect(code).toBe(1);
    const line = models.sdl.split('\n').indexOf('  tenant: Int') + 1;
    expect(stdout.split('\n').filter((l) => l.startsWith('::error'))).toEqual([
      expect.stringMatching(new RegExp(`^::error file=${models.file},line=${line},title=schema:check BREAKING FIELD_TYPE_CHANGED RecordOwner\\.tenant::`)),
    ]);
  });

  test("a change in the code: file=the TypeScript source,line=the field's declaration", async () => {
    // A baseline in which the field had another type: the code's field is the change.
    const baseline = path.join(dir, 'baseline.graphql');
    writeFileSync(baseline, inType('RecordOwner', /^ {2}tenant: String$/m, '  tenant: Int')(readFileSync(projectPath('gateway', 'supergraph.graphql'), 'utf8')));
    const { code, stdout } = await schemaCheck(['--baseline', baseline], github);
    expect(code).toBe(1);
    const source = 'subgraphs/models/graphql/types.ts';
    const line =
      readFileSync(projectPath(source), 'utf8')
        .split('\n')
        .findIndex((l) => / tenant!: string \| null;$/.test(l)) + 1;
    expect(line).toBeGreaterThan(0);
    expect(stdout).toMatch(new RegExp(`^::error file=${source},line=${line},title=schema:check BREAKING FIELD_TYPE_CHANGED RecordOwner\\.tenant::`, 'm'));
  });
});

describe('the passing line', () => {
  test('names the breaking changes it let through as unused', async () => {
    const indicators = await printedSubgraph('indicators', inType('IndicatorSpecification', /^ {2}"{3}[^"]*"{3}\n {2}indicatorType: String\n/m, ''));
    const { code, stdout } = await schemaCheck(['--subgraph', indicators.arg, '--usage-file', noUsageFile()]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^schema:check: ok: 1 API changes against \S+ \(1 breaking but unused, 0 allow-listed\), .*; let through as unused: IndicatorSpecification\.indicatorType\n$/);
  });
});

describe('schema:print', () => {
  test("prints a subgraph's SDL as composition reads it: the check passes with it as --subgraph (exit 0)", async () => {
    for (const name of ['models', 'indicators', 'impact']) {
      const printed = await printedSubgraph(name);
      expect(printed.sdl).toMatch(/^extend schema\s+@link\(url: "https:\/\/specs\.apollo\.dev\/federation\//);
      const { code, stdout } = await schemaCheck(['--subgraph', printed.arg]);
      expect({ name, code, stdout }).toEqual({
        name,
        code: 0,
        stdout: expect.stringMatching(/^schema:check: ok: 0 API changes .*, the same API composed by @apollo\/composition and @theguild\/federation-composition\n$/),
      });
    }
  });

  test('without --subgraph, or with a name no subgraph has: exit 2 and the usage, naming the subgraphs', async () => {
    const usage = 'usage: npm run schema:print -- --subgraph NAME   (NAME one of models, indicators, impact)';
    const missing = await runCommand('schema-print', []);
    expect(missing).toEqual({ code: 2, stdout: '', stderr: expect.stringContaining(`schema:print: expected --subgraph NAME\n${usage}\n`) });
    const unknown = await schemaPrint(['--subgraph', 'catalog']);
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: expect.stringContaining(`schema:print: no subgraph named catalog\n${usage}\n`) });
  });
});
