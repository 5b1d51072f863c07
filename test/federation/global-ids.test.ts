import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { globalId } from '../../kernel/graphql/global-id.js';
import { sampleRequest, twoVersionsProfile } from '../subgraphs/indicators/local-profile.js';

/**
 * `node(id:)` and `nodes(ids:)` through the federation (issue 37): the models subgraph answers them,
 * its own records and model versions in full and the questionnaire's items as stubs the indicators
 * subgraph completes. Every answer is compared with @apollo/gateway's own planner and executor on
 * the same subgraphs (a second system, in this process, whose gateway leaves every operation to it), and stated as a client sees it.
 * The catalog holds the sample model in two versions that repeat its keys with other texts and scores.
 */
const FAMILY = 're-indicators-specification';

let sut: TestSystem;
/** @apollo/gateway planning and executing everything: the reference. */
let stock: TestSystem;
const ask = async (system: TestSystem, query: string, variables: Record<string, unknown> = {}) => call(system.url('gateway'), 'POST', '/graphql', { body: { query, variables } });

/** Ids as the graph hands them out, read from the planned system's answers. */
const ids: Record<string, string> = {};
const RECORD_ID = 'global-ids-record-1';

beforeAll(async () => {
  const profile = twoVersionsProfile();
  [sut, stock] = await Promise.all([startInProcessSystem({ ...NO_AUTH, ...profile }), startInProcessSystem({ ...NO_AUTH, ...profile }, { stockExecutorOnly: true })]);
  const create = `mutation($payload: JSONObject!) { createRecord(input: { model: "${FAMILY}", version: "0.0.4", payload: $payload, idempotencyKey: "global-ids" }) { record { id } } }`;
  for (const system of [sut, stock]) expect((await ask(system, create, { payload: { ...sampleRequest().payload, id: RECORD_ID } })).json.errors).toBeUndefined();
  const questionnaire = (await ask(sut, `{ modelVersions { id version indicators { id parameters { id questions { id answers { id } } } } } }`)).json.data;
  for (const { id, version, indicators } of questionnaire.modelVersions) {
    ids[`v${version}`] = id;
    const laptop = indicators[1];
    ids[`indicator${version}`] = laptop.id;
    ids[`parameter${version}`] = laptop.parameters[0].id;
    ids[`question${version}`] = laptop.parameters[0].questions[0].id;
    ids[`answer${version}`] = laptop.parameters[0].questions[0].answers[0].id;
  }
  // An id of the right form for an item no questionnaire has, of a version the registry holds; and of one it does not.
  ids.missingItem = globalId('IndicatorQuestion', `AAAAAAAAAAAA0.0.4`);
  ids.unregisteredItem = globalId('IndicatorQuestion', `AAAAAAAAAAAA9.9.9`);
  ids.unregisteredVersion = globalId('ModelVersion', JSON.stringify([FAMILY, '9.9.9']));
  ids.notANodeType = globalId('Health', 'x');
}, 180_000);
afterAll(async () => {
  await Promise.all([sut?.stop(), stock?.stop()]);
});

const NODE = `query Node($id: ID!) {
  node(id: $id) {
    __typename id
    ... on ModelVersion { model version label indicators { indicatorSpecificationId } }
    ... on Indicator { indicatorSpecificationId productCategory parameters { parameterId } }
    ... on IndicatorParameter { parameterId name weight fixedScore questions { questionId } }
    ... on IndicatorQuestion { questionId text weight answers { answerId score } }
    ... on IndicatorAnswer { answerId text score }
    ... on Record { model version payload indicatorResult { totalScore } }
  }
}`;

const cases: Array<{ name: string; query: string; variables: () => Record<string, unknown>; expected: (given: Record<string, unknown>) => unknown }> = [
  {
    name: 'a model version, with its questionnaire from the indicators subgraph',
    query: NODE,
    variables: () => ({ id: ids['v0.0.5'] }),
    expected: ({ id }) => ({
      data: {
        node: {
          __typename: 'ModelVersion',
          id,
          model: FAMILY,
          version: '0.0.5',
          label: null,
          indicators: [{ indicatorSpecificationId: 'REcycle_Sample_Battery' }, { indicatorSpecificationId: 'REuse_Sample_Laptop' }],
        },
      },
    }),
  },
  {
    name: 'an indicator',
    query: NODE,
    variables: () => ({ id: ids['indicator0.0.4'] }),
    expected: ({ id }) => ({
      data: {
        node: {
          __typename: 'Indicator',
          id,
          indicatorSpecificationId: 'REuse_Sample_Laptop',
          productCategory: 'Laptop',
          parameters: [{ parameterId: 'P1_battery_health' }, { parameterId: 'P2_data_erasure' }],
        },
      },
    }),
  },
  {
    name: 'a parameter',
    query: NODE,
    variables: () => ({ id: ids['parameter0.0.5'] }),
    expected: ({ id }) => ({ data: { node: expect.objectContaining({ __typename: 'IndicatorParameter', id, parameterId: 'P1_battery_health', questions: [{ questionId: 'Q1.1' }] }) } }),
  },
  {
    name: 'a question of 0.0.4 under the key a question of the other indicator and of 0.0.5 have too: its own texts',
    query: NODE,
    variables: () => ({ id: ids['question0.0.4'] }),
    expected: ({ id }) => ({
      data: {
        node: {
          __typename: 'IndicatorQuestion',
          id,
          questionId: 'Q1.1',
          text: 'Can the battery state of health be read out?',
          weight: 1,
          answers: [
            { answerId: 'soh_reported', score: 5 },
            { answerId: 'soh_estimated', score: 3 },
            { answerId: 'soh_unknown', score: 0 },
          ],
        },
      },
    }),
  },
  {
    name: 'the same key in 0.0.5: another object',
    query: NODE,
    variables: () => ({ id: ids['answer0.0.5'] }),
    expected: ({ id }) => ({ data: { node: { __typename: 'IndicatorAnswer', id, answerId: 'soh_reported', text: 'The device reports the measured state of health (0.0.5)', score: 0 } } }),
  },
  {
    name: 'a record, by the id its REST paths use, with its scores from the indicators subgraph',
    query: NODE,
    variables: () => ({ id: RECORD_ID }),
    expected: ({ id }) => ({
      data: { node: { __typename: 'Record', id, model: FAMILY, version: '0.0.4', payload: expect.objectContaining({ id }), indicatorResult: { totalScore: expect.any(Number) } } },
    }),
  },
  { name: 'a record that does not exist', query: NODE, variables: () => ({ id: 'no-such-record' }), expected: () => ({ data: { node: null } }) },
  { name: 'a model version the registry does not hold', query: NODE, variables: () => ({ id: ids.unregisteredVersion }), expected: () => ({ data: { node: null } }) },
  { name: 'an item of a version the registry does not hold', query: NODE, variables: () => ({ id: ids.unregisteredItem }), expected: () => ({ data: { node: null } }) },
  {
    name: 'an item no questionnaire has: null (the gateway notes the missing entity under valueCompletion)',
    query: NODE,
    variables: () => ({ id: ids.missingItem }),
    expected: () => ({ data: { node: null }, extensions: { valueCompletion: [expect.objectContaining({ path: ['node', 'id'] })] } }),
  },
  {
    name: 'the same, asked for its id alone: still null, the indicators subgraph is asked',
    query: 'query Node($id: ID!) { node(id: $id) { id } }',
    variables: () => ({ id: ids.missingItem }),
    expected: () => ({ data: { node: null }, extensions: { valueCompletion: [expect.objectContaining({ path: ['node', 'id'] })] } }),
  },
  { name: 'an id of a type that is no Node: looked up as a record, none', query: NODE, variables: () => ({ id: ids.notANodeType }), expected: () => ({ data: { node: null } }) },
  {
    name: 'nodes: in the order given, null where there is nothing, the same id twice answered twice',
    query: 'query Nodes($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Node { id } ... on IndicatorQuestion { questionId } } }',
    variables: () => ({ ids: [ids['question0.0.5'], 'no-such-record', RECORD_ID, ids.missingItem, ids['v0.0.4'], ids['question0.0.5']] }),
    expected: ({ ids: given }) => {
      const [question, , record, , version] = given as string[];
      return {
        data: {
          nodes: [
            { __typename: 'IndicatorQuestion', id: question, questionId: 'Q1.1' },
            null,
            { __typename: 'Record', id: record },
            null,
            { __typename: 'ModelVersion', id: version },
            { __typename: 'IndicatorQuestion', id: question, questionId: 'Q1.1' },
          ],
        },
        extensions: { valueCompletion: [expect.objectContaining({ path: ['nodes', 3, 'id'] })] },
      };
    },
  },
  {
    name: 'nodes: more than 100 ids is BAD_REQUEST naming the argument',
    query: 'query Nodes($ids: [ID!]!) { nodes(ids: $ids) { id } }',
    variables: () => ({ ids: Array.from({ length: 101 }, (_, i) => `r-${i}`) }),
    expected: () => ({ data: null, errors: [expect.objectContaining({ path: ['nodes'], extensions: { code: 'BAD_REQUEST', details: { at: 'ids', reason: 'at most 100 ids' } } })] }),
  },
];

/**
 * The objects of an answer by the key a client cache files them under (`__typename` and `id`), and
 * the keys under which two objects disagree on a field they both carry: a cache would show one in
 * place of the other (issue 37).
 */
function conflictingCacheKeys(answer: unknown): string[] {
  const byKey = new Map<string, Record<string, unknown>>();
  const conflicts = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    const object = value as Record<string, unknown>;
    if (typeof object.__typename === 'string' && typeof object.id === 'string') {
      const key = `${object.__typename}:${object.id}`;
      const seen = byKey.get(key) ?? {};
      for (const [field, fieldValue] of Object.entries(object)) {
        if (typeof fieldValue === 'object' && fieldValue !== null) continue;
        if (field in seen && seen[field] !== fieldValue) conflicts.add(key);
        seen[field] = fieldValue;
      }
      byKey.set(key, seen);
    }
    Object.values(object).forEach(walk);
  };
  walk(answer);
  return [...conflicts];
}

describe('no two objects of an answer share a cache key unless they are the same object', () => {
  const QUESTIONNAIRE = `fragment Q on ModelVersion {
    __typename id version
    indicators { __typename id indicatorSpecificationId productCategory
      parameters { __typename id parameterId name weight fixedScore
        questions { __typename id questionId text weight answers { __typename id answerId text score } } } }
  }`;

  test('both versions, every list and lookup of the graph, and node/nodes of the same objects, in one answer', async () => {
    const query = `query Everything($ids: [ID!]!) {
      a: modelVersion(model: "${FAMILY}", version: "0.0.4") { ...Q }
      b: modelVersion(model: "${FAMILY}", version: "0.0.5") { ...Q }
      modelVersions { __typename id version label }
      records(first: 10) { nodes { __typename id modelVersion { __typename id version label } } }
      nodes(ids: $ids) { __typename id ... on IndicatorQuestion { questionId text } ... on ModelVersion { version } }
    }
    ${QUESTIONNAIRE}`;
    const answer = (await ask(sut, query, { ids: Object.values(ids) })).json;
    expect(answer.errors).toBeUndefined();
    expect(JSON.stringify(answer).match(/"__typename":"IndicatorAnswer"/g)!.length).toBeGreaterThan(30);
    expect(conflictingCacheKeys(answer)).toEqual([]);
  });

  test('the deprecated indicatorSpecifications does not meet it: the reason it is deprecated', async () => {
    const old = `{ modelVersions { indicatorSpecifications { __typename id parameters { __typename id questions { __typename id text } } } } }`;
    expect(conflictingCacheKeys((await ask(sut, old)).json)).toEqual(expect.arrayContaining(['QuestionSpecification:Q1.1', 'QuestionSpecification:Q2.1']));
  });
});

describe('node and nodes through the federation', () => {
  test('the model versions answer the same ids in both systems (ids are stable, not per process)', async () => {
    const again = (await ask(stock, `{ modelVersions { id indicators { id } } }`)).json.data.modelVersions;
    expect(again.map((v: { id: string }) => v.id)).toEqual([ids['v0.0.4'], ids['v0.0.5']]);
    expect(again[1].indicators[1].id).toBe(ids['indicator0.0.5']);
  });

  test('many at once: concurrent nodes of 100 ids each, every one answered as alone', async () => {
    const query = 'query Nodes($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on IndicatorAnswer { answerId score } ... on Record { version } } }';
    const pool = [ids['answer0.0.4'], ids['answer0.0.5'], ids['question0.0.4'], RECORD_ID, ids.missingItem, 'no-such-record'];
    const batches = Array.from({ length: 8 }, (_, b) => Array.from({ length: 100 }, (_, i) => pool[(b + i) % pool.length]!));
    const alone: string[] = [];
    for (const batch of batches.slice(0, pool.length)) alone.push((await ask(sut, query, { ids: batch })).text);
    const together = await Promise.all(batches.map(async (batch) => (await ask(sut, query, { ids: batch })).text));
    expect(together.slice(0, pool.length)).toEqual(alone);
    for (const text of together) expect(JSON.parse(text).data.nodes).toHaveLength(100);
  });

  test.each(cases)('$name', async ({ query, variables, expected }) => {
    const given = variables();
    const answer = await ask(sut, query, given);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(expected(given));
    // Ours planned (either planner) and @apollo/gateway's stock execution answer alike, text for text.
    expect(answer.text).toBe((await ask(stock, query, given)).text);
  });
});
