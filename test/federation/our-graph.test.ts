import { pathToFileURL } from 'node:url';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { SAMPLE_DIR, SAMPLE_SCORES, SAMPLE_TEMPLATE, sampleRequest } from '../subgraphs/indicators/local-profile.js';

/**
 * Entity resolution across our own subgraphs, through the real system: ModelVersion and Record are
 * owned by `models` and extended by `indicators` (the questionnaire; a record's scores, from the
 * fields it @requires). The catalog lists the sample model,
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
  sut = await startInProcessSystem({ ...NO_AUTH, ...catalogEnv() });
});
afterAll(() => sut?.stop());

const graphql = async (query: string, variables: Record<string, unknown> = {}) => (await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables } })).json;

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
      name: 'an entity models does not have is never asked of indicators: null at its root field, no error',
      query: '{ modelVersion(model: "nope", version: "1") { indicatorSpecifications { id } } }',
      expected: { data: { modelVersion: null } },
    },
    {
      name: 'an indicators error on the entity keeps its code and path; non-null fields carry it up to the nullable lookup',
      query: `{ modelVersion(model: "${FAMILY}", version: "0.0.5") { model indicatorSpecifications { id } } }`,
      expected: { data: { modelVersion: null }, errors: [contractError('CALCULATION_ARTIFACT_NOT_FOUND', ['modelVersion', 'indicatorSpecifications'])] },
    },
    {
      name: 'the same over a list (sorted by model, then version): the error names the item',
      query: '{ modelVersions { model version indicatorSpecifications { id } } }',
      expected: { data: null, errors: [contractError('CALCULATION_ARTIFACT_NOT_FOUND', ['modelVersions', 2, 'indicatorSpecifications'])] },
    },
  ];

  test.each(cases)('$name', async ({ query, expected }) => {
    expect(await graphql(query)).toEqual(expected);
  });

  test('the keys aliased onto each other (issue 35): indicators gets each version by its own model and version', async () => {
    expect(await graphql(`{ modelVersion(model: "${FAMILY}", version: "0.0.4") { model: version version: model indicatorSpecifications { id } } }`)).toEqual({
      data: { modelVersion: { model: '0.0.4', version: FAMILY, indicatorSpecifications: [{ id: 'REcycle_Sample_Battery' }, { id: 'REuse_Sample_Laptop' }] } },
    });
    // Over the list, the unpublished 0.0.5 fails as it does unaliased: its error at its own path.
    expect(await graphql('{ versions: modelVersions { version: model model: version indicatorSpecifications { id } } }')).toEqual({
      data: null,
      errors: [contractError('CALCULATION_ARTIFACT_NOT_FOUND', ['versions', 2, 'indicatorSpecifications'])],
    });
  });
});

describe('Record: owned by models, scored by indicators', () => {
  const RESULT = 'indicatorResult { status totalScore parameterScores { parameterId computedScore } }';
  const sampleResult = {
    status: 'COMPUTED',
    totalScore: expect.closeTo(SAMPLE_SCORES.total, 12),
    parameterScores: ['P1_disassembly_information', 'P2_cell_removability', 'P3_take_back'].map((parameterId, i) => ({
      parameterId,
      computedScore: expect.closeTo(SAMPLE_SCORES.parameters[i], 12),
    })),
  };
  let unique = 0;

  /** Core :create through the gateway (validated against the model version), under a new payload id. */
  async function createRecord(model: string, version: string, payload: Record<string, unknown>): Promise<string> {
    const created = await graphql(
      'mutation($model: String!, $version: String!, $payload: JSONObject!, $key: String!) { createRecord(input: { model: $model, version: $version, payload: $payload, idempotencyKey: $key }) { record { id } } }',
      { model, version, payload: { ...payload, id: `assessment-${++unique}` }, key: `federation-${unique}` },
    );
    expect(created.errors).toBeUndefined();
    return created.data.createRecord.record.id;
  }

  /** The records backend's storeRecord: any JSON payload, no validation. */
  async function storeRecord(payload: unknown): Promise<string> {
    const id = `stored-${++unique}`;
    await graphql(
      'mutation($id: ID!, $payload: JSON, $key: String!) { storeRecord(input: { id: $id, model: "re-indicators-specification", version: "0.0.4", payload: $payload, idempotencyKey: $key }) { record { id } } }',
      { id, payload, key: `federation-${unique}` },
    );
    return id;
  }

  test('a record created through the gateway is read back as an entity of the graph', async () => {
    const id = await createRecord(FAMILY, '0.0.4', sampleRequest().payload);
    expect(await graphql(`{ record(id: "${id}") { __typename id model version } }`)).toEqual({
      data: { record: { __typename: 'Record', id, model: FAMILY, version: '0.0.4' } },
    });
  });

  test('indicators scores a record from the fields it requires of models, as computeIndicators scores its payload', async () => {
    const id = await createRecord(FAMILY, '0.0.4', sampleRequest().payload);
    const read = await graphql(`{ record(id: "${id}") { id ${RESULT} } }`);
    expect(read).toEqual({ data: { record: { id, indicatorResult: sampleResult } } });
    const computed = await graphql(
      `
        mutation ($input: ComputeIndicatorsInput!) {
          computeIndicators(input: $input) {
            result {
              status
              totalScore
              parameterScores {
                parameterId
                computedScore
              }
            }
          }
        }
      `,
      {
        input: { modelVersion: '0.0.4', ...sampleRequest() },
      },
    );
    expect(read.data.record.indicatorResult).toEqual(computed.data.computeIndicators.result);
  });

  test('over a list, each record is scored with its own model and version; other models are null', async () => {
    const scored = await createRecord(FAMILY, '0.0.4', sampleRequest().payload);
    const other = await createRecord('other-model', '1.0', sampleRequest().payload);
    const listed = await graphql('query($filter: RecordFilter, $orderBy: [RecordOrder!]) { records(filter: $filter, orderBy: $orderBy) { nodes { id model indicatorResult { totalScore } } } }', {
      filter: { conditions: [{ field: 'ID', operator: 'IN', values: [{ string: scored }, { string: other }] }] },
      orderBy: [{ field: 'MODEL', direction: 'ASC' }],
    });
    expect(listed).toEqual({
      data: {
        records: {
          nodes: [
            { id: other, model: 'other-model', indicatorResult: null },
            { id: scored, model: FAMILY, indicatorResult: { totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) } },
          ],
        },
      },
    });
  });

  test("aliases on the fields indicatorResult requires (issue 35): scored from the record's own model, version and payload", async () => {
    const scored = await createRecord(FAMILY, '0.0.4', sampleRequest().payload);
    const other = await createRecord('other-model', '1.0', sampleRequest().payload);
    const variables = { filter: { conditions: [{ field: 'ID', operator: 'IN', values: [{ string: scored }, { string: other }] }] }, orderBy: [{ field: 'MODEL', direction: 'ASC' }] };
    const listed = (selection: string) => graphql(`query($filter: RecordFilter, $orderBy: [RecordOrder!]) { records(filter: $filter, orderBy: $orderBy) { nodes { ${selection} } } }`, variables);
    const score = { totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) };
    expect(await listed('model: version version: model indicatorResult { totalScore }')).toEqual({
      data: {
        records: {
          nodes: [
            { model: '1.0', version: 'other-model', indicatorResult: null },
            { model: '0.0.4', version: FAMILY, indicatorResult: score },
          ],
        },
      },
    });
    expect(await listed('payload: modelVersion { model } id: model indicatorResult { totalScore }')).toEqual({
      data: {
        records: {
          nodes: [
            { payload: { model: 'other-model' }, id: 'other-model', indicatorResult: null },
            { payload: { model: FAMILY }, id: FAMILY, indicatorResult: score },
          ],
        },
      },
    });
    expect(await graphql(`{ record(id: "${scored}") { version: payload payload: version indicatorResult { totalScore } } }`)).toEqual({
      data: { record: { version: expect.objectContaining({ id: expect.any(String) }), payload: '0.0.4', indicatorResult: score } },
    });
  });

  test('an indicators error on one record is a partial result: the record, its score null, the error at its path', async () => {
    const unpublished = await createRecord(FAMILY, '0.0.5', sampleRequest().payload);
    expect(await graphql(`{ record(id: "${unpublished}") { id version indicatorResult { totalScore } } }`)).toEqual({
      data: { record: { id: unpublished, version: '0.0.5', indicatorResult: null } },
      errors: [contractError('CALCULATION_ARTIFACT_NOT_FOUND', ['record', 'indicatorResult'])],
    });
    const unknown = await createRecord(FAMILY, '0.0.4', { ...sampleRequest().payload, indicator_specification_id: 'no-such-indicator' });
    expect(await graphql(`{ record(id: "${unknown}") { indicatorResult { totalScore } } }`)).toEqual({
      data: { record: { indicatorResult: null } },
      errors: [contractError('UNKNOWN_INDICATOR_SPECIFICATION', ['record', 'indicatorResult'])],
    });
  });

  test('a records-backend payload that is not an assessment: INVALID_REQUEST_BODY naming the problem, the record still read', async () => {
    const id = await storeRecord({ parameter_assessments: 'not a list' });
    const read = await graphql(`{ record(id: "${id}") { id payload indicatorResult { totalScore } } }`);
    expect(read).toEqual({
      data: { record: { id, payload: { parameter_assessments: 'not a list' }, indicatorResult: null } },
      errors: [contractError('INVALID_REQUEST_BODY', ['record', 'indicatorResult'])],
    });
    expect(read.errors[0].extensions.details.problems).toEqual([
      { path: '$.payload.indicator_specification_id', message: 'is required and must be a string' },
      { path: '$.payload.parameter_assessments', message: 'must be an array' },
    ]);
    const bare = await storeRecord(42);
    expect(await graphql(`{ record(id: "${bare}") { indicatorResult { totalScore } } }`)).toEqual({
      data: { record: { indicatorResult: null } },
      errors: [contractError('INVALID_REQUEST_BODY', ['record', 'indicatorResult'])],
    });
  });
});

describe('one operation over the three subgraphs', () => {
  test('models, indicators and impact answer one query together; an indicators error leaves the rest', async () => {
    const created = await graphql(
      'mutation($payload: JSONObject!) { a: createRecord(input: { model: "re-indicators-specification", version: "0.0.4", payload: $payload, idempotencyKey: "three-a" }) { record { id } } }',
      { payload: { ...sampleRequest().payload, id: 'three-subgraphs-scored' } },
    );
    const unpublished = await graphql(
      'mutation($payload: JSONObject!) { b: createRecord(input: { model: "re-indicators-specification", version: "0.0.5", payload: $payload, idempotencyKey: "three-b" }) { record { id } } }',
      { payload: { ...sampleRequest().payload, id: 'three-subgraphs-unpublished' } },
    );
    expect([created.errors, unpublished.errors]).toEqual([undefined, undefined]);
    const query = `{
      modelVersion(model: "${FAMILY}", version: "0.0.4") { version indicatorSpecifications { id } }
      health { impact { status } }
      records(
        filter: { conditions: [{ field: ID, operator: IN, values: [{ string: "three-subgraphs-scored" }, { string: "three-subgraphs-unpublished" }] }] }
        orderBy: [{ field: ID, direction: ASC }]
      ) {
        nodes { id version indicatorResult { totalScore } }
      }
    }`;
    expect(await graphql(query)).toEqual({
      data: {
        modelVersion: { version: '0.0.4', indicatorSpecifications: [{ id: 'REcycle_Sample_Battery' }, { id: 'REuse_Sample_Laptop' }] },
        health: { impact: { status: 'ok' } },
        records: {
          nodes: [
            { id: 'three-subgraphs-scored', version: '0.0.4', indicatorResult: { totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) } },
            { id: 'three-subgraphs-unpublished', version: '0.0.5', indicatorResult: null },
          ],
        },
      },
      errors: [contractError('CALCULATION_ARTIFACT_NOT_FOUND', ['records', 'nodes', 1, 'indicatorResult'])],
    });
  });
});
