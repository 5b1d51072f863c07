import { JwksServer } from '../support/jwks-server.js';
import { HOSTILE_SYSTEM_ENV } from '../support/hostile-input.js';
import { bearer } from '../support/edges.js';
import { type Answer, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 8, hostile input: operations built to exhaust the gateway, with the production defaults
 * (GRAPHQL_MAX_DEPTH 10, GRAPHQL_MAX_ALIASES 15, GRAPHQL_MAX_COST 50000) and an authenticated caller.
 * Each is refused with its code before any subgraph runs, quickly, and the gateway keeps serving.
 * (test/gateway/ proves each limit with small figures; these are the attacks.)
 */
let idp: JwksServer;
let sut: TestSystem;
let token: string;

beforeAll(async () => {
  idp = await JwksServer.start();
  token = await idp.sign({ scope: 'records:read' });
  // Introspection on: its nesting is the deepest the schema allows, which an attacker would use.
  sut = await startInProcessSystem({ ...HOSTILE_SYSTEM_ENV, ...idp.authEnv(), GRAPHQL_INTROSPECTION: 'true' });
});
afterAll(async () => {
  await sut?.stop();
  await idp?.close();
});

const graphql = (body: unknown) => call(sut.url('gateway'), 'POST', '/graphql', { body, headers: bearer(token) });

async function expectRefused(query: string, code: string): Promise<void> {
  const answer: Answer = await graphql({ query });
  expect({ status: answer.status, codes: answer.json?.errors?.map((e: { extensions: { code: string } }) => e.extensions.code) }).toEqual({ status: 400, codes: [code] });
  expect(answer.json.data).toBeUndefined();
}

const QUESTIONNAIRE = 'modelVersion(model: "re-indicators-specification", version: "0.0.4") { indicatorSpecifications { id parameters { id questions { id answers { id } } } } }';

test('the deepest legitimate operation (the questionnaire) runs under the defaults', async () => {
  const answer = await graphql({ query: `{ ${QUESTIONNAIRE} }` });
  expect(answer.status).toBe(200);
  expect(answer.json.errors).toBeUndefined();
  expect(answer.json.data.modelVersion.indicatorSpecifications.length).toBeGreaterThan(0);
});

test('introspection recursing through types and fields (response size grows with each level): refused', async () => {
  const recursive = Array.from({ length: 6 }).reduce<string>((inner) => `fields { name type { name ${inner} } }`, 'name');
  // Introspection fields are leaves for QUERY_TOO_DEEP; graphql-js's introspection depth rule stops this.
  await expectRefused(`{ __schema { types { ${recursive} } } }`, 'GRAPHQL_VALIDATION_FAILED');
});

test('an ofType chain 30 levels deep (bounded by the type system) is answered, and small', async () => {
  const nested = Array.from({ length: 30 }).reduce<string>((inner) => `ofType { name ${inner} }`, 'name');
  const answer = await graphql({ query: `{ __schema { types { fields { type { ${nested} } } } } }` });
  expect(answer.status).toBe(200);
  expect(answer.text.length).toBeLessThan(2_000_000);
});

test('10,000 aliases of one field: QUERY_TOO_LARGE before validation; 16 of them: TOO_MANY_ALIASES', async () => {
  await expectRefused(`{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: modelVersionCount`).join(' ')} }`, 'QUERY_TOO_LARGE');
  await expectRefused(`{ ${Array.from({ length: 16 }, (_, i) => `a${i}: modelVersionCount`).join(' ')} }`, 'TOO_MANY_ALIASES');
});

// Issue 24: every version's questionnaire (28,500) runs; aliases multiply it past the limit.
test("every version's questionnaire under aliases multiplies its cost: QUERY_TOO_COMPLEX", async () => {
  const every = QUESTIONNAIRE.replace('modelVersion(model: "re-indicators-specification", version: "0.0.4")', 'modelVersions');
  const once = await graphql({ query: `{ ${every} }` });
  expect(once.status).toBe(200);
  expect(once.json.errors).toBeUndefined();
  await expectRefused(`{ ${Array.from({ length: 2 }, (_, i) => `q${i}: ${every}`).join(' ')} }`, 'QUERY_TOO_COMPLEX');
});

test('a fragment bomb (each fragment spreading the previous twice, 2^40 fields): refused at once', async () => {
  const fragments = ['fragment F0 on Query { modelVersions { model version } }'];
  for (let i = 1; i <= 40; i++) fragments.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
  await expectRefused(`{ ...F40 } ${fragments.join(' ')}`, 'QUERY_TOO_COMPLEX');
});

// Issue 13, item 2: a document's size is bounded before graphql-js validates it, whose time grows
// with the square of repeated fields (5,000 repeats took 54 s and stalled every port of the process).
test('5,000 repeats of a field with a selection (155 KB): QUERY_TOO_LARGE, by its tokens', async () => {
  const answer = await graphql({ query: `{${' modelVersions { model version label }'.repeat(5000)} }` });
  expect(answer.status).toBe(400);
  expect(answer.json).toEqual({ errors: [{ message: 'document token count exceeds the limit of 3000', extensions: { code: 'QUERY_TOO_LARGE', details: { limit: 3000, measure: 'tokens' } } }] });
});

test('600 repeats of a scalar field (within the token limit): QUERY_TOO_LARGE, by its fields', async () => {
  const answer = await graphql({ query: `{${' modelVersionCount'.repeat(600)} }` });
  expect(answer.status).toBe(400);
  expect(answer.json.errors[0].extensions).toEqual({ code: 'QUERY_TOO_LARGE', details: { limit: 500, actual: 600, measure: 'fields' } });
});

test('a page costs what its size asks: aliases of records(first: 1000) { nodes { payload } } are refused', async () => {
  await expectRefused(`{ ${Array.from({ length: 15 }, (_, i) => `r${i}: records(first: 1000) { nodes { payload } }`).join(' ')} }`, 'QUERY_TOO_COMPLEX');
  await expectRefused(`{ ${Array.from({ length: 15 }, (_, i) => `r${i}: records(last: 1000) { edges { cursor node { payload } } totalCount }`).join(' ')} }`, 'QUERY_TOO_COMPLEX');
  await expectRefused(
    `{ ${Array.from({ length: 15 }, (_, i) => `r${i}: modelVersion(model: "re-indicators-specification", version: "0.0.4") { records(first: 1000) { nodes { payload } } }`).join(' ')} }`,
    'QUERY_TOO_COMPLEX',
  );
  const viaVariables = await graphql({
    query: `query($n: Int) { ${Array.from({ length: 15 }, (_, i) => `r${i}: records(first: $n) { nodes { payload } }`).join(' ')} }`,
    variables: { n: 1000 },
  });
  expect(viaVariables.status).toBe(400);
  expect(viaVariables.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  // Two of them are refused (62,002); one (31,001) runs, and so do 15 pages of 100 (46,530).
  await expectRefused('{ a: records(first: 1000) { nodes { payload } } b: records(first: 1000) { nodes { payload } } }', 'QUERY_TOO_COMPLEX');
  const one = await graphql({ query: '{ records(first: 1000) { nodes { payload } } }' });
  expect(one.status).toBe(200);
  expect(one.json.errors).toBeUndefined();
  const smaller = await graphql({ query: `{ ${Array.from({ length: 15 }, (_, i) => `r${i}: records(first: 100) { nodes { payload } pageInfo { hasNextPage } }`).join(' ')} }` });
  expect(smaller.status).toBe(200);
  expect(smaller.json.errors).toBeUndefined();
});

test.each([2500, 3000])('variables nested %d deep: 400 BAD_REQUEST naming the depth limit, as on the REST facades', async (depth) => {
  const variables = `{"f":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const answer = await call(sut.url('gateway'), 'POST', '/graphql', {
    body: `{"query":"query($f: RecordFilter) { records(filter: $f) { totalCount } }","variables":${variables}}`,
    headers: bearer(token),
  });
  expect(answer.status).toBe(400);
  expect(answer.json).toEqual({ errors: [{ message: 'request body nests arrays and objects deeper than 64 levels', extensions: { code: 'BAD_REQUEST', details: { max_depth: 64 } } }] });
});

test('a body that is not UTF-8: 400 BAD_REQUEST, not a silently repaired query', async () => {
  const body = Buffer.concat([Buffer.from('{"query":"{ modelVersions { model } }","variables":{"x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
  const response = await fetch(`${sut.url('gateway')}/graphql`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...bearer(token) } });
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({ errors: [{ message: 'request body is not valid UTF-8', extensions: { code: 'BAD_REQUEST', details: null } }] });
});

test('a batch of operations in one request is not run', async () => {
  const answer = await graphql(Array.from({ length: 100 }, () => ({ query: `{ ${QUESTIONNAIRE} }` })));
  expect(answer.status).toBe(400);
  expect(answer.text).not.toContain('indicatorSpecifications"');
});

test('after every attack the gateway still answers', async () => {
  const answer = await graphql({ query: '{ modelVersions { model version } }' });
  expect(answer.status).toBe(200);
  expect(answer.json.data.modelVersions).toHaveLength(2);
});
