import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ArtifactHost } from '../../support/artifact-host.js';
import { type ProjectFault, SMALL_PROJECT, breakProject, snapshotDirectory, writeBrightwayProject } from '../../support/brightway-fixture.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';

/**
 * The impact service as a frontend sees it through the unified graph: the same codes and messages
 * as its REST facade, nothing more (no stack trace, no internal location), and `computeImpact` as
 * free of side effects as `POST /compute`.
 */
const PROJECT_DIRECTORY = 'graph_project';
const CAPABILITIES = '{ impactCapabilities { calculationStatus background { projectName methodCount databases { name activityCount } } } }';
const COMPUTE = 'mutation Compute($input: ComputeImpactInput!) { computeImpact(input: $input) { integratedLca } }';
const VALID_INPUT = {
  modelVersions: { productSystem: '0.1.0', lciDataset: '0.1.0', integratedLca: '0.1.0' },
  productSystem: { name: 'bike' },
  lciDatasets: [{ name: 'frame' }],
  assessmentContext: { purpose: 'graph side effects' },
};

let workspace: string;
let project: string;
let core: ArtifactHost;
let sut: TestSystem;
const graphql = (query: string, variables: Record<string, unknown> = {}) => call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables } });
const coreHits = () => [...core.hits.values()].reduce((a, b) => a + b, 0);

/** A fresh, readable project at the configured directory (the service reads it on every call). */
function provision(): void {
  rmSync(project, { recursive: true, force: true });
  writeBrightwayProject(workspace, { ...SMALL_PROJECT, directoryName: PROJECT_DIRECTORY });
}

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), 'impact-graph-'));
  project = path.join(workspace, PROJECT_DIRECTORY);
  // A stand-in core that counts every request it gets: the impact service must never call it.
  core = await new ArtifactHost().start();
  sut = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', BACKGROUND_PROJECT_DIR: project, CORE_BASE_URL: core.url });
});
afterAll(async () => {
  await sut?.stop();
  await core?.stop();
  rmSync(workspace, { recursive: true, force: true });
});

describe('GraphQL impactCapabilities with a background project that cannot be opened', () => {
  const FAULTS: ProjectFault[] = ['missing-databases-json', 'malformed-databases-json', 'method-not-a-pair', 'missing-sqlite', 'sqlite-not-a-database', 'sqlite-without-activities-table'];

  /** The REST answer and the GraphQL answer for the project as it is now. */
  async function bothAnswers() {
    const rest = await call(sut.url('impact'), 'GET', '/capabilities');
    const graph = await graphql(CAPABILITIES);
    return { rest, graph };
  }

  function expectSameUnavailable({ rest, graph }: Awaited<ReturnType<typeof bothAnswers>>): string {
    expect(rest.status).toBe(503);
    expect(rest.json).toEqual({ detail: { code: 'BACKGROUND_PROJECT_UNAVAILABLE', message: expect.any(String) } });
    const message: string = rest.json.detail.message;
    // Exactly one error, with REST's message and the code: no stacktrace, no locations, no other extension.
    expect(graph.json).toStrictEqual({
      data: null,
      errors: [{ message, path: ['impactCapabilities'], extensions: { code: 'BACKGROUND_PROJECT_UNAVAILABLE', details: null } }],
    });
    for (const leak of [/\n\s+at /, /\.(ts|js):\d+/, /node_modules/, /dist\//, /subgraphs\//, /Error:/]) expect(graph.text).not.toMatch(leak);
    return message;
  }

  test('a directory that does not exist: the REST message, only that', async () => {
    rmSync(project, { recursive: true, force: true });
    const message = expectSameUnavailable(await bothAnswers());
    // The configured directory is what the operator set (REST and /health show it too); nothing else.
    expect(message).toBe(`background project unavailable: directory ${project} does not exist or cannot be read`);
  });

  test.each(FAULTS)('%s: the REST message naming the file at fault, no absolute path', async (fault) => {
    provision();
    breakProject(project, fault);
    const message = expectSameUnavailable(await bothAnswers());
    expect(message).toMatch(/^background project unavailable: (databases\.json|methods\.json|lci\/databases\.db)/);
    expect(message).not.toContain(workspace);
  });

  test('once the project is provisioned again, the same query answers data', async () => {
    provision();
    const { rest, graph } = await bothAnswers();
    expect(rest.status).toBe(200);
    expect(graph.json.errors).toBeUndefined();
    expect(graph.json.data.impactCapabilities).toEqual({
      calculationStatus: 'not_available',
      background: {
        projectName: 'small_demo',
        methodCount: 7,
        databases: [
          { name: 'biosphere3', activityCount: 7 },
          { name: 'foreground', activityCount: 3 },
          { name: 'lci-background', activityCount: 12 },
        ],
      },
    });
  });
});

describe('GraphQL computeImpact has no side effects, like POST /compute', () => {
  test('valid and invalid requests: no core call, the background project byte for byte unchanged', async () => {
    provision();
    // The project has been opened (and its SQLite read: `foreground` has no recorded count) before the snapshot.
    expect((await graphql(CAPABILITIES)).json.data.impactCapabilities.calculationStatus).toBe('not_available');
    const before = snapshotDirectory(project);
    const hitsBefore = coreHits();

    const valid = await graphql(COMPUTE, { input: VALID_INPUT });
    expect(valid.json).toStrictEqual({
      data: { computeImpact: null },
      errors: [{ message: expect.stringContaining('not available'), path: ['computeImpact'], extensions: { code: 'CALCULATION_NOT_IMPLEMENTED', details: null } }],
    });
    // An input its types refuse never reaches the service.
    const { productSystem: _, ...incomplete } = VALID_INPUT;
    const invalid = await graphql(COMPUTE, { input: incomplete });
    expect(invalid.json.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('productSystem'), extensions: { code: 'BAD_USER_INPUT' } })]);
    const missing = await graphql(COMPUTE, { input: null });
    expect(missing.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    // Repeated, in one operation with aliases: still nothing.
    const repeated = await graphql(
      `
        mutation ($input: ComputeImpactInput!) {
          a: computeImpact(input: $input) {
            integratedLca
          }
          b: computeImpact(input: $input) {
            integratedLca
          }
        }
      `,
      { input: VALID_INPUT },
    );
    expect(repeated.json.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['CALCULATION_NOT_IMPLEMENTED', 'CALCULATION_NOT_IMPLEMENTED']);

    expect(coreHits()).toBe(hitsBefore);
    expect(hitsBefore).toBe(0);
    expect(snapshotDirectory(project)).toEqual(before);
  });
});
