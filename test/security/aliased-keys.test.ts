import { HOSTILE_SYSTEM_ENV } from '../support/hostile-input.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { postgresReachable } from '../subgraphs/models/store/support.js';
import { SAMPLE_SCORES, sampleRequest } from '../subgraphs/indicators/local-profile.js';

/**
 * Issue 35, row 8: a client's aliases on the fields an entity fetch needs changed what a subgraph
 * received. `records { nodes { model: version version: model indicatorResult { … } } }` had
 * `indicators` score a record under its version as its model (null), `payload: modelVersion { model }`
 * sent it an object as the payload (INVALID_REQUEST_BODY); Hive's planner under a list, Apollo's
 * everywhere. Now the fetches ask for keys and required fields under their own names, and a client
 * may name its fields anything: the answer is the unaliased query's, under the client's names. The
 * system in the jest process (what a planner sends does not depend on the process layout), the
 * suite's planner, on PostgreSQL when it answers.
 */
const FAMILY = 're-indicators-specification';
let sut: TestSystem;
let scored: string;
let bare: string;

const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
  const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables } });
  expect(answer.status).toBe(200);
  return answer.json;
};

const SCORE = { status: 'COMPUTED', totalScore: expect.closeTo(SAMPLE_SCORES.total, 12) };
const RECORDS = 'query($ids: [FilterValue!]!) { records(filter: { conditions: [{ field: ID, operator: IN, values: $ids }] }, orderBy: [{ field: MODEL, direction: ASC }]) { nodes { SELECTION } } }';
const listed = (selection: string) => graphql(RECORDS.replace('SELECTION', selection), { ids: [{ string: scored }, { string: bare }] });

// @apollo/gateway's own executor plans and fetches the client's aliases as they come, and answers
// these wrong: planned-operations.test.ts compares the two.
describe('aliases on the fields indicatorResult requires change nothing a subgraph receives', () => {
  beforeAll(async () => {
    sut = await startInProcessSystem({ ...NO_AUTH, ...HOSTILE_SYSTEM_ENV }, { store: (await postgresReachable()) ? 'postgresql' : 'sqlite' });
    const created = await graphql(
      `mutation($payload: JSONObject!, $stored: JSON) {
        scored: createRecord(input: { model: "${FAMILY}", version: "0.0.4", payload: $payload, idempotencyKey: "aliased-scored" }) { record { id } }
        bare: storeRecord(input: { id: "aliased-bare", model: "bare", version: "0.1", payload: $stored, idempotencyKey: "aliased-bare" }) { record { id } }
      }`,
      { payload: { ...sampleRequest().payload, id: 'aliased-scored' }, stored: { note: 'not an assessment' } },
    );
    expect(created.errors).toBeUndefined();
    scored = created.data.scored.record.id;
    bare = created.data.bare.record.id;
  });
  afterAll(() => sut?.stop());

  test('model and version swapped over a page: the record is scored under its own, the other model null', async () => {
    expect(await listed('model: version version: model indicatorResult { status totalScore }')).toEqual({
      data: {
        records: {
          nodes: [
            { model: '0.1', version: 'bare', indicatorResult: null },
            { model: '0.0.4', version: FAMILY, indicatorResult: SCORE },
          ],
        },
      },
    });
  });

  test('another field aliased as the payload: it is what the client asked for, and the scores are the payload’s', async () => {
    expect(await listed('payload: modelVersion { model version } id: version indicatorResult { totalScore }')).toEqual({
      data: {
        records: {
          nodes: [
            { payload: { model: 'bare', version: '0.1' }, id: '0.1', indicatorResult: null },
            { payload: { model: FAMILY, version: '0.0.4' }, id: '0.0.4', indicatorResult: { totalScore: SCORE.totalScore } },
          ],
        },
      },
    });
  });

  test("`__typename` and the planners' own alias names as a client's aliases, on one record", async () => {
    const answer = await graphql(`{ record(id: "${scored}") { __typename: id _internal_qp_alias_0: version _internal_qp_alias_1: model version: payload indicatorResult { status } t: __typename } }`);
    expect(answer).toEqual({
      data: {
        record: {
          __typename: scored,
          _internal_qp_alias_0: '0.0.4',
          _internal_qp_alias_1: FAMILY,
          version: expect.objectContaining({ id: 'aliased-scored' }),
          indicatorResult: { status: 'COMPUTED' },
          t: 'Record',
        },
      },
    });
  });

  test('the answers are the unaliased ones under the client’s names', async () => {
    const plain = await listed('id model version payload indicatorResult { status totalScore }');
    const aliased = await listed('version: id id: model model: version indicatorResult: payload payload: indicatorResult { status totalScore }');
    expect(aliased.data.records.nodes).toEqual(
      plain.data.records.nodes.map((node: Record<string, unknown>) => ({ version: node.id, id: node.model, model: node.version, indicatorResult: node.payload, payload: node.indicatorResult })),
    );
  });
});
