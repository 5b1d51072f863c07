import { ENTITY_LOOKUP_WEIGHT } from '../../pipeline/limits/cost.js';
import { bearer } from '../support/edges.js';
import { HOSTILE_SYSTEM_ENV } from '../support/hostile-input.js';
import { JwksServer } from '../support/jwks-server.js';
import { type Answer, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 24, "Every request within a budget": the red team's documents against the system with the
 * settings `npm run serve` starts it with (jwt_jwks, every default limit, GRAPHQL_MAX_COST 50,000),
 * in the jest process: a document's price does not depend on the process layout. Each is refused
 * before anything runs, 400 QUERY_TOO_COMPLEX, its message naming the setting and the costliest
 * path.
 */
let idp: JwksServer;
let token: string;

beforeAll(async () => {
  idp = await JwksServer.start();
  token = await idp.sign({ scope: 'records:read records:write models:read' });
});
afterAll(() => idp?.close());

async function expectRefusedByCost(answer: Answer, path: string): Promise<void> {
  expect(answer.status).toBe(400);
  expect(answer.json.data).toBeUndefined();
  const [error] = answer.json.errors;
  expect(answer.json.errors).toHaveLength(1);
  expect(error.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', details: { limit: 50000, actual: expect.any(Number), path } });
  expect(error.message).toBe(`operation cost ${error.extensions.details.actual} exceeds the limit of 50000 (GRAPHQL_MAX_COST); its costliest path is ${path}`);
}

describe('at the gateway (/graphql)', () => {
  let sut: TestSystem;
  beforeAll(async () => {
    sut = await startInProcessSystem({ ...HOSTILE_SYSTEM_ENV, ...idp.authEnv() });
  });
  const graphql = (body: unknown) => call(sut.url('gateway'), 'POST', '/graphql', { body, headers: bearer(token) });

  test("records of records of records with no `first`: each page is the resolver's default 100, not 10", async () => {
    const answer = await graphql({
      query: '{ modelVersion(model: "re-indicators-specification", version: "0.0.4") { records { nodes { modelVersion { records { nodes { modelVersion { records { nodes { id } } } } } } } } } }',
    });
    await expectRefusedByCost(answer, 'modelVersion.records.nodes.modelVersion.records.nodes.modelVersion.records.nodes');
    expect(answer.json.errors[0].extensions.details.actual).toBe(1_030_302);
  });

  test("5 aliases of a page sized by a variable's default (1,000 payloads each)", async () => {
    const query = `query($n: Int = 1000) { ${[0, 1, 2, 3, 4].map((i) => `r${i}: records(first: $n) { nodes { payload } }`).join(' ')} }`;
    const answer = await graphql({ query });
    await expectRefusedByCost(answer, 'r0.nodes.payload');
    expect(answer.json.errors[0].extensions.details.actual).toBe(155_005);
    // Given as a variable, the same.
    await expectRefusedByCost(await graphql({ query, variables: { n: 1000 } }), 'r0.nodes.payload');
  });

  test("an artifact's content per record of a page", async () => {
    const answer = await graphql({ query: '{ records(first: 100) { nodes { modelVersion { artifact(kind: OWL) { content } } } } }' });
    await expectRefusedByCost(answer, 'records.nodes.modelVersion.artifact.content');
    expect(answer.json.errors[0].extensions.details.actual).toBe(1_000_301);
  });

  // Issue 27 (screens): `first` is at most 1,000 whatever the page is asked for.
  test.each(['{ records(first: 5000) { totalCount } }', '{ records(last: 1001) { pageInfo { hasPreviousPage } } }'])('%s: BAD_REQUEST, as with nodes', async (query) => {
    for (const asked of [query, query.replace(/\{ (totalCount|pageInfo \{ hasPreviousPage \}) \}/, '{ nodes { id } }')]) {
      const answer = await graphql({ query: asked });
      expect(answer.status).toBe(200);
      expect(answer.json.data).toBeNull();
      expect(answer.json.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual([
        { code: 'BAD_REQUEST', details: { at: query.includes('first') ? 'first' : 'last', reason: `${query.includes('first') ? 'first' : 'last'} must be an integer from 0 to 1000` } },
      ]);
    }
  });

  // Issue 37: Relay's nodes(ids:) is as long as its ids, each priced as node(id:) is.
  test('nodes: 1,000 ids of questionnaires, priced by the number of ids before anything runs', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `id-${i}`);
    const answer = await graphql({ query: 'query ($ids: [ID!]!) { nodes(ids: $ids) { ... on Indicator { parameters { questions { answers { id } } } } } }', variables: { ids } });
    await expectRefusedByCost(answer, 'nodes.parameters.questions.answers');
    expect(answer.json.errors[0].extensions.details.actual).toBe(1000 * (1 + 6 * (1 + 6 * (1 + 6))));
  });

  test('nodes: within the cost, 5,000 ids are still refused by the cap, naming the argument', async () => {
    const answer = await graphql({ query: 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }', variables: { ids: Array.from({ length: 5000 }, (_, i) => `id-${i}`) } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: null, errors: [expect.objectContaining({ path: ['nodes'], extensions: { code: 'BAD_REQUEST', details: { at: 'ids', reason: 'at most 100 ids' } } })] });
  });

  test('first and last together: BAD_REQUEST naming `last`, the argument to leave out', async () => {
    const answer = await graphql({ query: '{ records(first: 1, last: 1) { nodes { id } } }' });
    expect(answer.json.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual([{ code: 'BAD_REQUEST', details: { at: 'last', reason: 'give first or last, not both' } }]);
  });

  test('after every refusal the gateway still answers', async () => {
    const answer = await graphql({ query: '{ modelVersions { model version } }' });
    expect(answer.status).toBe(200);
    expect(answer.json.data.modelVersions.length).toBeGreaterThan(0);
  });
});

describe('at a subgraph port called directly (PROCESS_ROLE=subgraph)', () => {
  let models: TestSystem;
  beforeAll(async () => {
    models = await startInProcessSystem({
      ...HOSTILE_SYSTEM_ENV,
      ...idp.authEnv(),
      PROCESS_ROLE: 'subgraph',
      SUBGRAPH: 'models',
      SUBGRAPH_PORT: '0',
      GATEWAY_SUBGRAPH_SECRET: 'test-gateway-subgraph-secret',
    });
  });
  const direct = (body: unknown) => call(models.url('subgraph:models'), 'POST', '/graphql', { body, headers: bearer(token) });

  test('`_entities` with 15,000 representations (610 KB of variables): priced by their number, refused', async () => {
    const representations = Array.from({ length: 15_000 }, (_, i) => ({ __typename: 'Record', id: `record-${String(i).padStart(6, '0')}` }));
    const answer = await direct({ query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Record { id payload } } }', variables: { r: representations } });
    await expectRefusedByCost(answer, '_entities.payload');
    expect(answer.json.errors[0].extensions.details.actual).toBe(15_000 * (ENTITY_LOOKUP_WEIGHT + 30));
  });

  test('a few representations run', async () => {
    const answer = await direct({ query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Record { id } } }', variables: { r: [{ __typename: 'Record', id: 'none' }] } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { _entities: [null] } });
  });
});
