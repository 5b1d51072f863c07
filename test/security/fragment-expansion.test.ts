import { JwksServer } from '../support/jwks-server.js';
import { HOSTILE_SYSTEM_ENV, hostileSubgraphPortEnv } from '../support/hostile-input.js';
import { bearer } from '../support/edges.js';
import { type Answer, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { type TestDatabase, createDatabase } from '../subgraphs/models/store/support.js';
import { PLANNERS } from '../support/planners.js';

/**
 * Issue 35, row 1 (high): 24 fragments, each spreading the next twice (1,179 bytes), passed every
 * limit (scalars cost nothing) and reached Hive's planner, which inlines every spread before it
 * plans: 504 at the deadline, the worker growing from 4.2 to 9.3 GB in 90 s with its event loop
 * free, so no watchdog saw it. Now the operation is measured as the planner would hold it
 * (GRAPHQL_MAX_SELECTIONS, 2,000 by default: 3 × 2^24 here) and refused with 400
 * TOO_MANY_SELECTIONS before anything plans it, whichever planner, and on a subgraph port for a
 * direct caller as at the edge; the system goes on answering.
 */
const FRAGMENTS = 24;

/** The finding's document, `spread` saying how each fragment spreads the next. */
function chain(spread: (next: string) => string): string {
  const fragments = Array.from({ length: FRAGMENTS }, (_, i) => `fragment F${i} on ModelVersion { ${spread(`F${i + 1}`)} }`);
  return `{ modelVersions { ...F0 } } ${fragments.join(' ')} fragment F${FRAGMENTS} on ModelVersion { model }`;
}

const CHAINS: Array<[string, string, number]> = [
  ['the finding: ...F(i+1) ...F(i+1)', chain((next) => `...${next} ...${next}`), 3 * 2 ** 24],
  // No two spreads of one fragment side by side, for a planner that would drop such a duplicate.
  ['each spread in an inline fragment of its own', chain((next) => `... on ModelVersion { ...${next} } ... on ModelVersion { ...${next} }`), 5 * 2 ** 24 - 2],
];

const HEALTH = '{ health { registry { status } indicators { status } impact { status } } }';

let idp: JwksServer;
let token: string;
beforeAll(async () => {
  idp = await JwksServer.start();
  token = await idp.sign({ scope: 'records:read' });
});
afterAll(() => idp?.close());

function expectRefused(answer: Answer, actual: number): void {
  expect({ status: answer.status, body: answer.json }).toEqual({
    status: 400,
    body: {
      errors: [
        {
          message: `operation selection count (fragments spread) ${actual} exceeds the limit of 2000 (GRAPHQL_MAX_SELECTIONS)`,
          extensions: { code: 'TOO_MANY_SELECTIONS', details: { limit: 2000, actual } },
        },
      ],
    },
  });
}

// The planner is what these are about: the limit holds before either plans.
describe.each(PLANNERS)('/graphql, the %s planner (jwt_jwks)', (planner) => {
  let sut: TestSystem;
  const graphql = (query: string) => call(sut.url('gateway'), 'POST', '/graphql', { body: { query }, headers: bearer(token) });

  beforeAll(async () => {
    sut = await startInProcessSystem({ ...HOSTILE_SYSTEM_ENV, ...idp.authEnv() }, { planner });
  });
  afterAll(() => sut?.stop());

  test.each(CHAINS)('%s: 400 TOO_MANY_SELECTIONS, and the health query is answered next', async (_shape, query, actual) => {
    expectRefused(await graphql(query), actual);
    const health = await graphql(HEALTH);
    expect({ status: health.status, errors: health.json.errors }).toEqual({ status: 200, errors: undefined });
  });

  test('four of each at once: every one refused, the system answering after them', async () => {
    const answers = await Promise.all(CHAINS.flatMap(([, query]) => [query, query, query, query]).map((query) => graphql(query)));
    expect(answers.map((answer) => [answer.status, answer.json.errors[0].extensions.code])).toEqual(answers.map(() => [400, 'TOO_MANY_SELECTIONS']));
    expect((await graphql(HEALTH)).status).toBe(200);
  });

  test('an operation that spreads a fragment a few times runs', async () => {
    const answer = await graphql('{ a: modelVersions { ...V ...V } b: modelVersions { ...V } } fragment V on ModelVersion { model version label }');
    expect({ status: answer.status, errors: answer.json.errors }).toEqual({ status: 200, errors: undefined });
    expect(answer.json.data.a.length).toBeGreaterThan(0);
  });
});

describe('a subgraph port (PROCESS_ROLE=subgraph, models), its direct caller', () => {
  let database: TestDatabase;
  let server: TestSystem;
  const graphql = (query: string) => call(server.url('subgraph:models'), 'POST', '/graphql', { body: { query }, headers: bearer(token) });

  beforeAll(async () => {
    database = await createDatabase('sqlite');
    server = await startInProcessSystem({ ...hostileSubgraphPortEnv(database.url, 'fragment-expansion-gateway-secret'), ...idp.authEnv() });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  test.each(CHAINS)('%s: 400 TOO_MANY_SELECTIONS, as at the edge; the port answers next', async (_shape, query, actual) => {
    expectRefused(await graphql(query), actual);
    expect((await call(server.url('subgraph:models'), 'GET', '/health')).status).toBe(200);
    const models = await graphql('{ modelVersions { model version } }');
    expect({ status: models.status, errors: models.json.errors }).toEqual({ status: 200, errors: undefined });
  });
});
