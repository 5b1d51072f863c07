import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMALL_PROJECT, writeBrightwayProject } from '../../support/brightway-fixture.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';

/**
 * `POST /compute` over HTTP with a field of an incompatible JSON type: 422 with exactly the body
 * FastAPI + pydantic v2 send (DECISIONS section 6), every member of each issue included, `input`
 * being the offending value itself.
 */
const VALID = {
  model_versions: { product_system: '0.1.0', lci_dataset: '0.1.0', integrated_lca: '0.1.0' },
  product_system: { name: 'bike' },
};
const MSG = {
  model_attributes_type: 'Input should be a valid dictionary or object to extract fields from',
  dict_type: 'Input should be a valid dictionary',
  list_type: 'Input should be a valid list',
  string_type: 'Input should be a valid string',
};

let dir: string;
let sut: TestSystem;
const compute = (body: unknown) => call(sut.url('impact'), 'POST', '/compute', { body });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'impact-422-'));
  sut = await startInProcessSystem({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]', BACKGROUND_PROJECT_DIR: writeBrightwayProject(dir, SMALL_PROJECT) });
});
afterAll(async () => {
  await sut?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /compute with a field of the wrong JSON type is 422 in FastAPI shape', () => {
  test.each([
    ['product_system: "x"', { ...VALID, product_system: 'x' }, { type: 'dict_type', loc: ['body', 'product_system'], msg: MSG.dict_type, input: 'x' }],
    ['product_system: []', { ...VALID, product_system: [] }, { type: 'dict_type', loc: ['body', 'product_system'], msg: MSG.dict_type, input: [] }],
    ['lci_datasets: {}', { ...VALID, lci_datasets: {} }, { type: 'list_type', loc: ['body', 'lci_datasets'], msg: MSG.list_type, input: {} }],
    ['lci_datasets: "x"', { ...VALID, lci_datasets: 'x' }, { type: 'list_type', loc: ['body', 'lci_datasets'], msg: MSG.list_type, input: 'x' }],
    ['lci_datasets: [1]', { ...VALID, lci_datasets: [1] }, { type: 'dict_type', loc: ['body', 'lci_datasets', 0], msg: MSG.dict_type, input: 1 }],
    ['assessment_context: null', { ...VALID, assessment_context: null }, { type: 'dict_type', loc: ['body', 'assessment_context'], msg: MSG.dict_type, input: null }],
    ['model_versions: "0.1.0"', { ...VALID, model_versions: '0.1.0' }, { type: 'model_attributes_type', loc: ['body', 'model_versions'], msg: MSG.model_attributes_type, input: '0.1.0' }],
    [
      'model_versions.lci_dataset: 1',
      { ...VALID, model_versions: { ...VALID.model_versions, lci_dataset: 1 } },
      { type: 'string_type', loc: ['body', 'model_versions', 'lci_dataset'], msg: MSG.string_type, input: 1 },
    ],
  ])('%s', async (_, body, issue) => {
    const answer = await compute(body);
    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toStrictEqual({ detail: [issue] });
  });

  test('several wrong types at once: every issue, in declaration order, each with its input', async () => {
    const answer = await compute({ model_versions: { product_system: 2, lci_dataset: '0.1.0', integrated_lca: '0.1.0' }, product_system: 'x', lci_datasets: {}, assessment_context: [] });
    expect(answer.status).toBe(422);
    expect(answer.json).toStrictEqual({
      detail: [
        { type: 'string_type', loc: ['body', 'model_versions', 'product_system'], msg: MSG.string_type, input: 2 },
        { type: 'dict_type', loc: ['body', 'product_system'], msg: MSG.dict_type, input: 'x' },
        { type: 'list_type', loc: ['body', 'lci_datasets'], msg: MSG.list_type, input: {} },
        { type: 'dict_type', loc: ['body', 'assessment_context'], msg: MSG.dict_type, input: [] },
      ],
    });
  });

  test('a missing field reports the enclosing object as its input', async () => {
    const answer = await compute({ model_versions: VALID.model_versions, lci_datasets: [] });
    expect(answer.status).toBe(422);
    expect(answer.json).toStrictEqual({
      detail: [{ type: 'missing', loc: ['body', 'product_system'], msg: 'Field required', input: { model_versions: VALID.model_versions, lci_datasets: [] } }],
    });
  });

  test("GraphQL computeImpact refuses the same wrong type by its input types (the REST 422 is the facade's)", async () => {
    const rest = await compute({ ...VALID, model_versions: { ...VALID.model_versions, lci_dataset: 1 } });
    expect(rest.status).toBe(422);
    const input = { modelVersions: { productSystem: '0.1.0', lciDataset: 1, integratedLca: '0.1.0' }, productSystem: {}, lciDatasets: [], assessmentContext: {} };
    const graph = await call(sut.url('gateway'), 'POST', '/graphql', {
      body: { query: 'mutation($input: ComputeImpactInput!) { computeImpact(input: $input) { integratedLca } }', variables: { input } },
    });
    expect(graph.json.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('input.modelVersions.lciDataset'), extensions: { code: 'BAD_USER_INPUT' } })]);
  });
});
