import { pathToFileURL } from 'node:url';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../support/system.js';
import { SAMPLE_DIR, SAMPLE_TEMPLATE, sampleRequest } from '../indicators/local-profile.js';

/**
 * Entity resolution across our own subgraphs, through the real system: ModelVersion is owned by
 * `models` and extended by `indicators` (the questionnaire). The catalog lists the sample model,
 * a version whose calculation artifact is not published (0.0.5), and a model of another family.
 */
const FAMILY = 're-indicators-specification';

function catalogEnv(): Record<string, string> {
  const base_url = `${pathToFileURL(SAMPLE_DIR).href}/0.0.4/`;
  const catalog = [
    { model: FAMILY, version: '0.0.4', base_url },
    { model: FAMILY, version: '0.0.5', base_url },
    { model: 'other-model', version: '1.0', base_url },
  ];
  return { REGISTRY_CATALOG_JSON: JSON.stringify(catalog), REGISTRY_ALLOW_FILE_URLS: 'true', ARTIFACT_BASE_URL_TEMPLATE: SAMPLE_TEMPLATE };
}

/** A contract error as the gateway endpoint shows it: its code, and the path where it happened. */
const contractError = (code: string, path: Array<string | number>) => ({ message: expect.any(String), path, extensions: expect.objectContaining({ code }) });

let sut: TestSystem;
beforeAll(async () => {
  sut = await startTestSystem({ ...NO_AUTH, ...catalogEnv() });
});
afterAll(() => sut?.stop());

const graphql = async (query: string, variables: Record<string, unknown> = {}) =>
  (await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables } })).json;

describe('ModelVersion: models and indicators', () => {
  const cases: Array<{ name: string; query: string; expected: unknown }> = [
    {
      name: 'fields of both subgraphs on one entity',
      query: `{ modelVersion(model: "${FAMILY}", version: "0.0.4") { model version indicatorSpecifications { id parameters { id } } } }`,
      expected: {
        data: {
          modelVersion: {
            model: FAMILY,
            version: '0.0.4',
            indicatorSpecifications: [
              { id: 'REcycle_Sample_Battery', parameters: [{ id: 'P1_disassembly_information' }, { id: 'P2_cell_removability' }, { id: 'P3_take_back' }] },
              { id: 'REuse_Sample_Laptop', parameters: expect.any(Array) },
            ],
          },
        },
      },
    },
    {
      name: 'the key reaches indicators for each entity: another family has no questionnaire',
      query: `{ sample: modelVersion(model: "${FAMILY}", version: "0.0.4") { indicatorSpecifications { id } }
                other: modelVersion(model: "other-model", version: "1.0") { model indicatorSpecifications { id } } }`,
      expected: {
        data: {
          sample: { indicatorSpecifications: [{ id: 'REcycle_Sample_Battery' }, { id: 'REuse_Sample_Laptop' }] },
          other: { model: 'other-model', indicatorSpecifications: [] },
        },
      },
    },
    {
      name: 'an entity models does not have is never asked of indicators: MODEL_NOT_FOUND at its root field',
      query: '{ modelVersion(model: "nope", version: "1") { indicatorSpecifications { id } } }',
      expected: { data: null, errors: [contractError('MODEL_NOT_FOUND', ['modelVersion'])] },
    },
    {
      name: 'an indicators error on the entity keeps its code and path; non-null fields carry it to the root',
      query: `{ modelVersion(model: "${FAMILY}", version: "0.0.5") { model indicatorSpecifications { id } } }`,
      expected: { data: null, errors: [contractError('CALCULATION_ARTIFACT_NOT_FOUND', ['modelVersion', 'indicatorSpecifications'])] },
    },
    {
      name: 'the same over a list (sorted by model, then version): the error names the item',
      query: '{ models { model version indicatorSpecifications { id } } }',
      expected: { data: null, errors: [contractError('CALCULATION_ARTIFACT_NOT_FOUND', ['models', 2, 'indicatorSpecifications'])] },
    },
  ];

  test.each(cases)('$name', async ({ query, expected }) => {
    expect(await graphql(query)).toEqual(expected);
  });
});

describe('Record: owned by models', () => {
  test('a record created through the gateway is read back as an entity of the graph', async () => {
    const created = await graphql(
      `mutation($payload: JSONObject!) { createRecord(model: "${FAMILY}", version: "0.0.4", payload: $payload, idempotencyKey: "federation-1") { record { id } } }`,
      { payload: sampleRequest().payload },
    );
    const id = created.data.createRecord.record.id;
    expect(await graphql(`{ record(id: "${id}") { __typename id model version } }`)).toEqual({
      data: { record: { __typename: 'Record', id, model: FAMILY, version: '0.0.4' } },
    });
  });
});
