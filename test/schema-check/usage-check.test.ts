import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type DocumentNode, Kind, parse, print, visit } from 'graphql';
import { subgraphSdls } from '../../gateway/compose.js';
import { projectPath } from '../../kernel/project.js';
import { commandLine, inProcess } from '../support/commands.js';
import { NO_AUTH } from '../support/system.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { type TestDatabase, createDatabase, postgresReachable } from '../subgraphs/models/store/support.js';

/**
 * Issue 25's operation checks, end to end: real traffic through the built server's gateway from
 * named clients, usage written by the gateway's workers to PostgreSQL (SQLite when absent), then
 * the real `schema:check` command with a subgraph's proposed SDL (`--subgraph`), the running
 * gateway as its baseline and usage source (`--baseline-url`, `--usage-url`) or an exported file.
 * The command is its `runSchemaCheck` in this process (test/support/commands.ts), with the
 * arguments and environment the command line gives it; the first check runs as the npm script
 * does, for the exit code and output as a user sees them against a running gateway.
 */
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
const EXAMPLE_ENV = {
  REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: SAMPLE }]),
  REGISTRY_ALLOW_FILE_URLS: 'true',
  ARTIFACT_BASE_URL_TEMPLATE: SAMPLE.replace('0.0.4', '{version}'),
  BACKGROUND_PROJECT_DIR: projectPath('examples', 'brightway-project'),
};

let server: ServerProcess;
let database: TestDatabase;
let dir: string;

const schemaCheck = (args: string[], env: Record<string, string> = {}) => inProcess('schema-check', args, env);

async function send(client: string, version: string, query: string): Promise<void> {
  const response = await fetch(`${server.url('gateway')}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'graphql-client-name': client, 'graphql-client-version': version },
    body: JSON.stringify({ query }),
  });
  expect(response.status).toBe(200);
}

/** The subgraphs' SDL from the code, built once for the file. */
let codeSdls: ReturnType<typeof subgraphSdls> | undefined;

/** A subgraph's SDL without one field, written to a file for `--subgraph <name>=<file>`. */
async function withoutField(coordinate: string): Promise<string> {
  const [type, field] = coordinate.split('.');
  for (const subgraph of await (codeSdls ??= subgraphSdls())) {
    let removed = false;
    const edited = visit(parse(subgraph.sdl), {
      FieldDefinition(node, _key, _parent, _path, ancestors) {
        const owner = ancestors[ancestors.length - 1] as { kind: Kind; name?: { value: string } };
        if (node.name.value === field && owner.name?.value === type && (owner.kind === Kind.OBJECT_TYPE_DEFINITION || owner.kind === Kind.OBJECT_TYPE_EXTENSION)) {
          removed = true;
          return null;
        }
        return undefined;
      },
    }) as DocumentNode;
    if (!removed) continue;
    const file = path.join(dir, `${subgraph.name}-without-${coordinate}.graphql`);
    writeFileSync(file, print(edited));
    return `${subgraph.name}=${file}`;
  }
  throw new Error(`no subgraph defines ${coordinate}`);
}

const usageExport = async () => (await fetch(`${server.url('gateway')}/admin/usage?days=30`)).json() as Promise<{ counts: Array<{ client: string; day: string; count: number }> }>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'usage-check-'));
  database = (await postgresReachable()) ? await createDatabase('postgresql') : { url: `file:${path.join(dir, 'records.db')}`, drop: async () => undefined };
  // USAGE_FLUSH_SECS is what this test waits on; every other setting is the deployed default.
  server = await spawnServer({ ...NO_AUTH, ...EXAMPLE_ENV, DATABASE_URL: database.url, USAGE_FLUSH_SECS: '1' });
  for (let i = 0; i < 3; i += 1) await send('passport-app', '2.1.0', 'query RecordDates { record(id: "r-1") { id updatedAt } }');
  for (let i = 0; i < 2; i += 1) await send('ops-dashboard', '1.0.0', 'query FirstPage { records(first: 1) { pageInfo { startCursor } } modelVersionCount }');
  await send('load-test', '0.1', 'query Owners { record(id: "r-1") { owner { tenant } } }');
  // The export waits for this process's counts; the other worker's are written within a second.
  const deadline = Date.now() + 20_000;
  let counted = 0;
  while (Date.now() < deadline) {
    counted = (await usageExport()).counts.filter((c) => c.client !== 'unknown').reduce((sum, c) => sum + c.count, 0);
    if (counted === 6) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(counted).toBe(6);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const fromGateway = () => ['--baseline-url', server.url('gateway'), '--usage-url', server.url('gateway')];

describe('schema:check with the usage of a running gateway', () => {
  test('removing a field only one client used fails, naming the client and the operation', async () => {
    const { code, stdout } = await commandLine('schema-check', ['--subgraph', await withoutField('Record.updatedAt'), ...fromGateway()]);
    expect(code).toBe(1);
    expect(stdout).toContain('  BREAKING FIELD_REMOVED Record.updatedAt');
    expect(stdout).toMatch(/ {4}operation RecordDates [0-9a-f]{12}: 3 requests \(passport-app 2\.1\.0: 3\)/);
    expect(stdout).not.toContain('ops-dashboard');
  }, 60_000);

  test('removing a field no client used in the window passes as safe, saying so', async () => {
    const { code, stdout } = await schemaCheck(['--subgraph', await withoutField('IndicatorSpecification.indicatorType'), ...fromGateway()]);
    expect({ code, stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^schema:check: ok: 1 API changes against the gateway at http:\/\/127\.0\.0\.1:\d+ \(1 breaking but unused, 0 allow-listed\)/),
    });
    const json = JSON.parse((await schemaCheck(['--subgraph', await withoutField('IndicatorSpecification.indicatorType'), ...fromGateway(), '--format', 'json'])).stdout);
    expect(json.changes).toEqual([expect.objectContaining({ type: 'FIELD_REMOVED', path: 'IndicatorSpecification.indicatorType', verdict: 'unused', operations: [], deployed: [] })]);
  }, 60_000);

  test('a field used only before the window passes', async () => {
    // The same usage, exported and moved 40 days back: what a file exported a while ago holds.
    const old = await usageExport();
    const shifted = { ...old, counts: old.counts.map((c) => ({ ...c, day: new Date(Date.parse(c.day) - 40 * 86_400_000).toISOString().slice(0, 10) })) };
    const file = path.join(dir, 'old-usage.json');
    writeFileSync(file, JSON.stringify(shifted));
    const subgraph = await withoutField('Record.updatedAt');
    const inWindow = await schemaCheck(['--subgraph', subgraph, '--baseline-url', server.url('gateway'), '--usage-file', file, '--days', '60']);
    expect(inWindow.code).toBe(1);
    const outside = await schemaCheck(['--subgraph', subgraph, '--baseline-url', server.url('gateway'), '--usage-file', file, '--days', '30']);
    expect(outside.code).toBe(0);
    expect(outside.stdout).toContain('1 breaking but unused');
  }, 60_000);

  test("an excluded client's usage is ignored", async () => {
    const subgraph = await withoutField('RecordOwner.tenant');
    const counted = await schemaCheck(['--subgraph', subgraph, ...fromGateway()]);
    expect(counted.code).toBe(1);
    expect(counted.stdout).toMatch(/operation Owners [0-9a-f]{12}: 1 requests \(load-test 0\.1: 1\)/);
    const excluded = await schemaCheck(['--subgraph', subgraph, ...fromGateway(), '--exclude-client', 'load-test']);
    expect(excluded.code).toBe(0);
    expect(excluded.stdout).toMatch(/; let through as unused: RecordOwner\.tenant\n$/);
  }, 60_000);

  test('a field only the frontend kit uses fails through its deployed documents, with no traffic at all', async () => {
    const { code, stdout } = await schemaCheck(['--subgraph', await withoutField('IndicatorParameter.fixedScore'), ...fromGateway()]);
    expect(code).toBe(1);
    expect(stdout).toContain('  BREAKING FIELD_REMOVED IndicatorParameter.fixedScore');
    expect(stdout).toContain('    deployed: frontend-kit Questionnaire');
    expect(stdout).toContain('frontend-kit Questionnaire: Cannot query field "fixedScore" on type "IndicatorParameter".');
  }, 60_000);

  test('the GitHub output and the JSON output carry the same verdicts', async () => {
    // Two subgraphs edited at once: one used change, one unused.
    const models = await withoutField('Record.updatedAt');
    const indicators = await withoutField('IndicatorSpecification.indicatorType');
    const args = ['--subgraph', models, '--subgraph', indicators, ...fromGateway()];
    const summary = path.join(dir, 'step-summary.md');
    const github = await schemaCheck(args, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    const json = await schemaCheck([...args, '--format', 'json'], { GITHUB_ACTIONS: 'false' });
    expect([github.code, json.code]).toEqual([1, 1]);
    const changes = JSON.parse(json.stdout).changes as Array<{ path: string; verdict: string; location: { file: string; line: number } }>;
    const fromJson = changes.map((c) => `${c.verdict.toUpperCase()} ${c.path}`).sort();
    const annotations = [...github.stdout.matchAll(/^::(?:error|notice) file=([^,]+),line=(\d+),title=schema:check (BREAKING|UNUSED) \S+ (\S+)::/gm)];
    const fromAnnotations = annotations.map((m) => `${m[3]} ${m[4]}`).sort();
    const fromSummary = [...readFileSync(summary, 'utf8').matchAll(/^\| (BREAKING|UNUSED) \| \S+ \| `([^`]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    expect(fromJson).toEqual(['BREAKING Record.updatedAt', 'UNUSED IndicatorSpecification.indicatorType']);
    expect(fromAnnotations).toEqual(fromJson);
    expect(fromSummary).toEqual(fromJson);
    // Each at its type in the file given for its subgraph (the field is gone), in JSON as in the annotation.
    const locations = annotations.map((m) => ({ path: m[4], location: { file: m[1], line: Number(m[2]) } }));
    expect(locations).toEqual(expect.arrayContaining(changes.map(({ path, location }) => ({ path, location }))));
    expect(changes.map((c) => c.location.file).sort()).toEqual([indicators, models].map((arg) => arg.slice(arg.indexOf('=') + 1)).sort());
    expect(readFileSync(summary, 'utf8')).toContain('## Schema check: ❌ breaking');
  }, 60_000);

  test('without any usage source the check says it saw none, and a breaking change fails as before', async () => {
    const { code, stdout } = await schemaCheck(['--subgraph', await withoutField('IndicatorSpecification.indicatorType'), '--baseline-url', server.url('gateway')]);
    expect(code).toBe(1);
    expect(stdout).toContain('usage: none seen (no --usage-url, --usage-file or DATABASE_URL): every breaking change fails');
  }, 60_000);

  test('a usage source that cannot be read: exit 2, the check could not run', async () => {
    const { code, stderr } = await schemaCheck(['--usage-file', path.join(dir, 'missing.json')]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^schema:check could not run: usage file .*missing\.json/);
  }, 60_000);
});

describe('usage for people: GET /admin/usage/fields', () => {
  test('per field: requests, last use and clients; unused @deprecated fields are removable', async () => {
    const response = await fetch(`${server.url('gateway')}/admin/usage/fields?days=30`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { fields: Array<{ coordinate: string; requests: number; last_used_at: string; clients: Array<{ name: string }> }>; removable: unknown[] };
    const updatedAt = body.fields.find((f) => f.coordinate === 'Record.updatedAt');
    expect(updatedAt).toEqual({ coordinate: 'Record.updatedAt', requests: 3, last_used_at: expect.any(String), clients: [{ name: 'passport-app', version: '2.1.0', requests: 3 }] });
    expect(Array.isArray(body.removable)).toBe(true);
    const refused = await fetch(`${server.url('gateway')}/admin/usage/fields?days=0`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('BAD_REQUEST');
  });
});
