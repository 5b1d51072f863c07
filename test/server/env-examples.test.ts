import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { projectPath } from '../../kernel/project.js';
import { ArtifactHost } from '../support/artifact-host.js';
import { freePort } from '../support/ports.js';
import { eventually } from '../support/load-loop.js';
import { JwksServer, TEST_AUDIENCE, TEST_ISSUER } from '../support/jwks-server.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { type Answer, STORES, call } from '../support/system.js';
import { type TestDatabase, createDatabase } from '../subgraphs/models/store/support.js';
import { SAMPLE_DIR, SAMPLE_SCORES, sampleRequest } from '../subgraphs/indicators/local-profile.js';

/**
 * Issue 27, "no recipe": each role starts from its documented example environment
 * (examples/env/*.env) the way docs/DEPLOYMENT.md tells an operator to start it,
 * `node --env-file=<file> dist/bundle/server.js`, and answers real requests. The test replaces the
 * lines the file marks `# [site]` (its database, identity provider, catalog host, secret, the other
 * roles' addresses) and only those, through the environment, which Node lets win over the file;
 * and the listeners' ports, so that it runs beside anything.
 */
const EXAMPLES = projectPath('examples', 'env');
const MODEL = 're-indicators-specification';
const VERSION = '0.0.4';
const SECRET = 'env-examples-test-gateway-secret';
const SCOPES = 'records:write records:read';

/** The variables a file marks `# [site]` (the comment line right above each). */
function siteVariables(file: string): string[] {
  const text = readFileSync(path.join(EXAMPLES, file), 'utf8');
  return [...text.matchAll(/^# \[site\][^\n]*\n([A-Z0-9_]+)=/gm)].map((match) => match[1]!).sort();
}

/** Starts the built server from an example file, with the test's own value for each of its [site] variables. */
async function startFrom(file: string, site: Record<string, string>, ports: Record<string, string> = {}): Promise<ServerProcess> {
  expect(Object.keys(site).sort()).toEqual(siteVariables(file));
  return spawnServer({ ...site, ...ports }, { envFile: path.join(EXAMPLES, file) });
}

function startedLine(server: ServerProcess): Record<string, any> {
  const line = server
    .output()
    .split('\n')
    .find((text) => text.includes('"msg":"started"'));
  return JSON.parse(line!);
}

/** A catalog host serving the sample model version (its artifacts and calculation.json) over plain HTTP. */
async function modelHost(): Promise<ArtifactHost> {
  const host = await new ArtifactHost().start();
  for (const file of ['schema.json', 'shacl.ttl', 'owl.ttl', 'calculation.json']) {
    host.serve(`/${MODEL}/${VERSION}/${file}`, readFileSync(path.join(SAMPLE_DIR, VERSION, file), 'utf8'));
  }
  host.serve('/catalog.json', JSON.stringify([{ model: MODEL, version: VERSION, base_url: `${host.url}/${MODEL}/${VERSION}/` }]));
  return host;
}

/** What every role's file marks as the site's, for this test's identity provider and catalog host. */
function identity(idp: JwksServer): Record<string, string> {
  return { AUTH_JWKS_URL: idp.url, AUTH_ISSUER: TEST_ISSUER, AUTH_AUDIENCE: TEST_AUDIENCE };
}

function registry(host: ArtifactHost): Record<string, string> {
  return { REGISTRY_CATALOG_URL: `${host.url}/catalog.json`, REGISTRY_ALLOWED_HOSTS: new URL(host.url).host, REGISTRY_REQUIRE_HTTPS: 'false' };
}

const artifacts = (host: ArtifactHost) => ({ ARTIFACT_BASE_URL_TEMPLATE: `${host.url}/${MODEL}/{version}/` });
const brightway = { BACKGROUND_PROJECT_DIR: projectPath('examples', 'brightway-project') };

/** The sample assessment created through the core facade (stored in PostgreSQL), then read with its scores through the graph. */
async function createAndScore(edge: ServerProcess, token: string, id: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const payload = { ...sampleRequest().payload, id };
  const created = await call(edge.url('core'), 'POST', `/models/${MODEL}/versions/${VERSION}:create`, { body: { payload }, headers: { ...auth, 'idempotency-key': id } });
  expect({ status: created.status, id: created.json?.id }).toEqual({ status: 200, id });
  const read: Answer = await call(edge.url('gateway'), 'POST', '/graphql', {
    body: { query: `{ record(id: "${id}") { model version indicatorResult { totalScore } } }` },
    headers: { ...auth, 'graphql-client-name': 'env-examples-test' },
  });
  expect(read.json).toEqual({ data: { record: { model: MODEL, version: VERSION, indicatorResult: { totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) } } } });
}

/** The edge logged one access line per request it answered (ACCESS_LOG=true in the files). */
function accessLines(edge: ServerProcess): Array<Record<string, any>> {
  return edge
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line));
}

// The files name PostgreSQL; without one reachable (and CI unset) there is nothing to start them on.
const withPostgres = STORES.includes('postgresql') ? describe : describe.skip;

withPostgres('examples/env: every role starts from its example environment', () => {
  let host: ArtifactHost;
  let idp: JwksServer;
  let token: string;
  const databases: TestDatabase[] = [];

  beforeAll(async () => {
    host = await modelHost();
    idp = await JwksServer.start();
    token = await idp.sign({ scope: SCOPES });
  });
  afterAll(async () => {
    await idp?.close();
    await host?.stop();
    for (const database of databases) await database.drop();
  });

  async function database(): Promise<string> {
    const created = await createDatabase('postgresql');
    databases.push(created);
    return created.url;
  }

  test('all-in-one.env: one replica of everything on PostgreSQL with jwt_jwks; a record created and scored', async () => {
    const server = await startFrom('all-in-one.env', {
      DATABASE_URL: await database(),
      ...identity(idp),
      ...registry(host),
      ...artifacts(host),
      ...brightway,
    });
    try {
      expect(startedLine(server)).toMatchObject({ role: 'all', workers: 2, auth: 'jwt_jwks', store: expect.stringMatching(/^postgresql /), catalog: `${host.url}/catalog.json` });
      await createAndScore(server, token, 'env-all-1');
      // Each worker writes its own lines: the one that answered last may not have written yet.
      const lines = await eventually(() => (accessLines(server).length >= 2 ? accessLines(server) : undefined));
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ door: 'core', method: 'POST', route: '/models/{model}/versions/{version}:create', operation: 'CoreCreateRecord', status: 200 }),
          expect.objectContaining({ door: 'graphql', method: 'POST', route: '/graphql', status: 200, client: 'env-examples-test' }),
        ]),
      );
    } finally {
      await server.stop();
    }
  });

  test('gateway.env over subgraph-models.env, subgraph-indicators.env and subgraph-impact.env: the same answers across the hops', async () => {
    const shared = await database();
    // The indicators and impact subgraphs name the edge's core before it listens: its port is chosen first.
    const corePort = String(await freePort());
    const edgeCore = { CORE_BASE_URL: `http://127.0.0.1:${corePort}` };
    const subgraphPort = { SUBGRAPH_PORT: '0' };
    // One at a time: each start has the startup timeout to itself on a busy machine.
    const models = await startFrom('subgraph-models.env', { GATEWAY_SUBGRAPH_SECRET: SECRET, DATABASE_URL: shared, ...identity(idp), ...registry(host) }, subgraphPort);
    const indicators = await startFrom('subgraph-indicators.env', { GATEWAY_SUBGRAPH_SECRET: SECRET, ...identity(idp), ...edgeCore, ...artifacts(host) }, subgraphPort);
    const impact = await startFrom('subgraph-impact.env', { GATEWAY_SUBGRAPH_SECRET: SECRET, ...identity(idp), ...edgeCore, ...brightway }, subgraphPort);
    try {
      expect([models, indicators, impact].map((server) => startedLine(server).role)).toEqual(['subgraph:models', 'subgraph:indicators', 'subgraph:impact']);
      expect(startedLine(models)).toMatchObject({ workers: 2, auth: 'jwt_jwks', store: expect.stringMatching(/^postgresql /) });
      const edge = await startFrom(
        'gateway.env',
        {
          MODELS_SUBGRAPH_URL: `${models.url('subgraph:models')}/graphql`,
          INDICATORS_SUBGRAPH_URL: `${indicators.url('subgraph:indicators')}/graphql`,
          IMPACT_SUBGRAPH_URL: `${impact.url('subgraph:impact')}/graphql`,
          GATEWAY_SUBGRAPH_SECRET: SECRET,
          DATABASE_URL: shared,
          ...identity(idp),
        },
        { CORE_PORT: corePort },
      );
      try {
        expect(startedLine(edge)).toMatchObject({ role: 'gateway', workers: 2, auth: 'jwt_jwks' });
        await createAndScore(edge, token, 'env-gateway-1');
        // Scoring validates through the edge's core (CORE_BASE_URL) and the models subgraph behind it.
        const scored = await call(edge.url('gateway'), 'POST', '/graphql', {
          body: {
            query: 'mutation($payload: JSONObject!) { computeIndicators(input: { payload: $payload }) { validation { status passed } result { totalScore } } }',
            variables: sampleRequest(),
          },
          headers: { authorization: `Bearer ${token}` },
        });
        expect(scored.json).toEqual({ data: { computeIndicators: { validation: { status: 'VALIDATED_BY_CORE', passed: true }, result: { totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) } } } });
        const capabilities = await call(edge.url('impact'), 'GET', '/capabilities', { headers: { authorization: `Bearer ${token}` } });
        expect(capabilities.status).toBe(200);
      } finally {
        await edge.stop();
      }
    } finally {
      await Promise.all([models.stop(), indicators.stop(), impact.stop()]);
    }
  });

  test('every example file is what Node reads with --env-file, and names its role', () => {
    const roles = { 'all-in-one.env': 'all', 'gateway.env': 'gateway', 'subgraph-models.env': 'subgraph', 'subgraph-indicators.env': 'subgraph', 'subgraph-impact.env': 'subgraph' };
    for (const [file, role] of Object.entries(roles)) {
      const settings = parseEnv(readFileSync(path.join(EXAMPLES, file), 'utf8'));
      expect({ file, role: settings.PROCESS_ROLE, auth: settings.AUTH_MODE }).toEqual({ file, role, auth: 'jwt_jwks' });
    }
  });
});
