import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kind, parse, visit } from 'graphql';
import { projectPath } from '../../kernel/project.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem, startTestSystem } from '../support/system.js';
import { SERVER_ENTRY } from '../support/server-process.js';

/**
 * Issue "The unified graph, designed for the frontend teams", item 7: with GRAPHQL_TRUSTED_DOCUMENTS
 * `/graphql` runs only the documents of a manifest (by hash, documentId or text); without it,
 * automatic persisted queries work as Apollo Server provides them. The committed manifest is what
 * `npm run trusted-documents` writes.
 */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const LISTED = 'query Probe {\n  __typename\n}';
const UNLISTED = 'query Other {\n  __typename\n}';
const MANIFEST = { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: sha256(LISTED), name: 'Probe', type: 'query', body: LISTED }] };
const ANSWER = { data: { __typename: 'Query' } };
const SYSTEM_ENV = { ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]' };

const dir = mkdtempSync(path.join(tmpdir(), 'trusted-documents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeManifest(name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

describe('GRAPHQL_TRUSTED_DOCUMENTS set: only listed documents run', () => {
  let system: TestSystem;
  const graphql = (body: unknown) => call(system.url('gateway'), 'POST', '/graphql', { body });
  const refused = (answer: { status: number; json: any }) => {
    expect(answer.status).toBe(400);
    expect(answer.json.errors).toEqual([{ message: expect.stringMatching(/trusted documents only|does not name|name different/), extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' } }]);
  };

  beforeAll(async () => {
    system = await startInProcessSystem({ ...SYSTEM_ENV, GRAPHQL_TRUSTED_DOCUMENTS: writeManifest('listed.json', MANIFEST) });
  });

  test('an unlisted document is refused: 400 PERSISTED_QUERY_NOT_IN_LIST', async () => {
    refused(await graphql({ query: UNLISTED }));
    refused(await graphql({ query: '{ __typename }' }));
    refused(await graphql({ query: 'mutation { refreshRegistry { refreshedAt } }' }));
    refused(await graphql({ variables: {} }));
  });

  test('an id nothing lists is refused, as a persistedQuery hash or a documentId', async () => {
    refused(await graphql({ extensions: persisted(sha256(UNLISTED)) }));
    refused(await graphql({ documentId: sha256(UNLISTED) }));
  });

  test('automatic persisted queries cannot register a document: the hash stays unknown', async () => {
    refused(await graphql({ query: UNLISTED, extensions: persisted(sha256(UNLISTED)) }));
    refused(await graphql({ extensions: persisted(sha256(UNLISTED)) }));
  });

  test('a listed document runs by its extensions.persistedQuery.sha256Hash alone', async () => {
    const answer = await graphql({ extensions: persisted(sha256(LISTED)) });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(ANSWER);
  });

  test('a listed document runs by its documentId, with or without the sha256: prefix, by POST or GET', async () => {
    expect((await graphql({ documentId: sha256(LISTED) })).json).toEqual(ANSWER);
    expect((await graphql({ documentId: `sha256:${sha256(LISTED)}`, operationName: 'Probe', variables: {} })).json).toEqual(ANSWER);
    const get = await call(system.url('gateway'), 'GET', `/graphql?documentId=${sha256(LISTED)}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect(get.status).toBe(200);
    expect(get.json).toEqual(ANSWER);
  });

  test('a listed document runs by its full text, as listed or printed otherwise, with its APQ hash or not', async () => {
    expect((await graphql({ query: LISTED })).json).toEqual(ANSWER);
    expect((await graphql({ query: 'query Probe { __typename }' })).json).toEqual(ANSWER);
    expect((await graphql({ query: LISTED, extensions: persisted(sha256(LISTED)) })).json).toEqual(ANSWER);
    const get = await call(system.url('gateway'), 'GET', `/graphql?query=${encodeURIComponent('query Probe {__typename}')}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect(get.json).toEqual(ANSWER);
  });

  test('an id that names another document than the text sent is refused', async () => {
    refused(await graphql({ query: LISTED, documentId: sha256(UNLISTED) }));
    refused(await graphql({ query: LISTED, extensions: persisted(sha256(UNLISTED)) }));
  });

  test('the REST facades are unaffected: their routes run their own operations', async () => {
    const models = await call(system.url('core'), 'GET', '/models');
    expect(models.status).toBe(200);
  });
});

describe('GRAPHQL_TRUSTED_DOCUMENTS unset: automatic persisted queries as Apollo Server provides them', () => {
  /** One deployment for both tests: each registers a document of its own, which no worker has seen before it. */
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem(SYSTEM_ENV);
  });

  /**
   * Each on a connection of its own: the primary hands them to the workers in turn, and each worker
   * keeps its own cache of registered documents (docs/DECISIONS.md).
   */
  const onNewConnections = (body: unknown, count: number) =>
    Promise.all(Array.from({ length: count }, () => call(system.url('gateway'), 'POST', '/graphql', { body, headers: { connection: 'close' } })));

  test('a hash no worker has seen is PERSISTED_QUERY_NOT_FOUND; hash and text answer; then the hash alone answers on every worker that got it', async () => {
    const text = 'query Apq { __typename }';
    const [unknown] = await onNewConnections({ extensions: persisted(sha256(text)) }, 1);
    expect(unknown!.status).toBe(200);
    expect(unknown!.json.errors).toEqual([expect.objectContaining({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })]);
    const registered = await onNewConnections({ query: text, extensions: persisted(sha256(text)) }, 6);
    expect(registered.map((answer) => answer.json)).toEqual(Array(6).fill(ANSWER));
    const byHash = await onNewConnections({ extensions: persisted(sha256(text)) }, 6);
    expect(byHash.map((answer) => answer.json)).toEqual(Array(6).fill(ANSWER));
  });

  test('a client following the protocol gets its answer whichever worker it reaches: on PERSISTED_QUERY_NOT_FOUND it sends the text once', async () => {
    const text = 'query ApqClient { __typename }';
    const asApolloClient = async () => {
      const [first] = await onNewConnections({ extensions: persisted(sha256(text)) }, 1);
      if (first!.json.errors?.[0]?.extensions?.code !== 'PERSISTED_QUERY_NOT_FOUND') return first!.json;
      const [retried] = await onNewConnections({ query: text, extensions: persisted(sha256(text)) }, 1);
      return retried!.json;
    };
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await asApolloClient());
    expect(answers).toEqual(Array(6).fill(ANSWER));
  });
});

describe('the manifest: npm run trusted-documents', () => {
  const committed = projectPath('gateway', 'trusted-documents.json');
  const run = (script: string, output: string) => spawnSync(process.execPath, [script, output], { encoding: 'utf8', timeout: 20000 });

  test('gateway/trusted-documents.json is up to date (else: npm run trusted-documents, and commit it)', () => {
    const output = path.join(dir, 'regenerated.json');
    const result = run(projectPath('scripts', 'trusted-documents.mjs'), output);
    expect(result.stderr).toBe('');
    expect(readFileSync(output, 'utf8')).toBe(readFileSync(committed, 'utf8'));
  });

  test('one entry per operation of the REST routes: the operation and the fragments it uses, id the sha256 of the body', () => {
    const manifest = JSON.parse(readFileSync(committed, 'utf8'));
    expect(manifest).toMatchObject({ format: 'apollo-persisted-query-manifest', version: 1 });
    for (const entry of manifest.operations) {
      expect(entry.id).toBe(sha256(entry.body));
      expect(selfContained(entry.body)).toEqual({ operations: [`${entry.type} ${entry.name}`], missing: [], unused: [] });
    }
    const routeOperations = readdirSync(projectPath('rest-facade'), { withFileTypes: true })
      .filter((entry) => existsSync(projectPath('rest-facade', entry.name, 'operations.graphql')))
      .flatMap((entry) => operationNames(readFileSync(projectPath('rest-facade', entry.name, 'operations.graphql'), 'utf8')));
    expect(manifest.operations.map((entry: { name: string }) => entry.name)).toEqual(expect.arrayContaining(routeOperations));
  });

  test("the frontend kit's documents are read, fragments kept in other files included; an absent kit is no error", () => {
    const tree = mkdtempSync(path.join(dir, 'tree-'));
    cpSync(projectPath('scripts', 'trusted-documents.mjs'), path.join(tree, 'scripts', 'trusted-documents.mjs'));
    symlinkSync(projectPath('node_modules'), path.join(tree, 'node_modules'));
    mkdirSync(path.join(tree, 'rest-facade', 'core'), { recursive: true });
    writeFileSync(path.join(tree, 'rest-facade', 'core', 'operations.graphql'), 'query CoreModels { modelVersions { model } }');
    const output = path.join(tree, 'manifest.json');
    expect(run(path.join(tree, 'scripts', 'trusted-documents.mjs'), output).status).toBe(0);
    expect(JSON.parse(readFileSync(output, 'utf8')).operations.map((entry: { name: string }) => entry.name)).toEqual(['CoreModels']);

    mkdirSync(path.join(tree, 'examples', 'frontend', 'screens'), { recursive: true });
    writeFileSync(path.join(tree, 'examples', 'frontend', 'fragments.graphql'), 'fragment Label on ModelVersion { label ...Key }\nfragment Key on ModelVersion { model version }');
    writeFileSync(path.join(tree, 'examples', 'frontend', 'screens', 'models.graphql'), 'query ModelList { modelVersions { ...Label } }');
    expect(run(path.join(tree, 'scripts', 'trusted-documents.mjs'), output).status).toBe(0);
    const list = JSON.parse(readFileSync(output, 'utf8')).operations.find((entry: { name: string }) => entry.name === 'ModelList');
    expect(list.body).toBe(
      'query ModelList {\n  modelVersions {\n    ...Label\n  }\n}\n\nfragment Key on ModelVersion {\n  model\n  version\n}\n\nfragment Label on ModelVersion {\n  label\n  ...Key\n}',
    );
  });
});

/** The operations a document defines (`type name`), and the fragments it spreads but lacks or holds but never spreads. */
function selfContained(body: string) {
  const document = parse(body);
  const spread = new Set<string>();
  visit(document, { FragmentSpread: (node) => void spread.add(node.name.value) });
  const defined = document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [d.name.value] : []));
  return {
    operations: document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [`${d.operation} ${d.name?.value}`] : [])),
    missing: [...spread].filter((name) => !defined.includes(name)),
    unused: defined.filter((name) => !spread.has(name)),
  };
}

function operationNames(text: string): string[] {
  return parse(text).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d.name!.value] : []));
}

describe('a bad GRAPHQL_TRUSTED_DOCUMENTS stops startup with one line naming it, exit 1', () => {
  const serve = (value: string) =>
    spawnSync(process.execPath, [SERVER_ENTRY], {
      env: { PATH: process.env.PATH ?? '', ...SYSTEM_ENV, CORE_PORT: '0', GATEWAY_PORT: '0', GRAPHQL_TRUSTED_DOCUMENTS: value },
      encoding: 'utf8',
      timeout: 20000,
    });

  test.each([
    ['a file that does not exist', () => path.join(dir, 'absent.json')],
    ['an empty value', () => ''],
    ['a file that is not JSON', () => writeManifest('not-json.json', '{"format": ')],
    ['another format', () => writeManifest('other-format.json', { ...MANIFEST, format: 'hive-trusted-documents' })],
    ['an entry without a body', () => writeManifest('no-body.json', { ...MANIFEST, operations: [{ id: 'x', name: 'X', type: 'query' }] })],
    ['a body that does not parse', () => writeManifest('bad-body.json', { ...MANIFEST, operations: [{ id: 'x', name: 'X', type: 'query', body: 'query X {' }] })],
  ])('%s', (_case, value) => {
    const result = serve(value());
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('GRAPHQL_TRUSTED_DOCUMENTS');
  });
});
