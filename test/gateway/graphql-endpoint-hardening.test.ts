import { readSystemConfig } from '../../server/config.js';
import { maskError } from '../../gateway/graphql-endpoint.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { miniModelHost } from '../support/mini-model.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

let host: ArtifactHost;
let sut: TestSystem;
beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  sut = await startInProcessSystem({
    ...mini.env,
    ...NO_AUTH,
    GRAPHQL_MAX_DEPTH: '3',
    GRAPHQL_MAX_ALIASES: '2',
    GRAPHQL_MAX_COST: '50',
    SERVER_REQUEST_MAX_BYTES: '4096',
  });
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
});

const graphql = (body: unknown) => call(sut.url('gateway'), 'POST', '/graphql', { body });

describe('operation limits at the gateway endpoint, each with its own code', () => {
  test.each([
    ['{ modelVersion(model: "mini", version: "1.0") { indicatorSpecifications { parameters { id } } } }', 'QUERY_TOO_DEEP', { limit: 3, actual: 4 }],
    ['{ a: modelVersionCount b: modelVersionCount c: modelVersionCount }', 'TOO_MANY_ALIASES', { limit: 2, actual: 3 }],
    // 10 versions assumed, 11 indicators each (the sizes the subgraphs declare).
    ['{ modelVersions { indicatorSpecifications { id } } }', 'QUERY_TOO_COMPLEX', { limit: 50, actual: 120, path: 'modelVersions.indicatorSpecifications' }],
    // A connection's page size multiplies its nodes (and edges), not the connection itself; a payload weighs 30.
    ['{ records(first: 2) { nodes { payload } } }', 'QUERY_TOO_COMPLEX', { limit: 50, actual: 63, path: 'records.nodes.payload' }],
    ['{ records(last: 50) { edges { cursor } } }', 'QUERY_TOO_COMPLEX', { limit: 50, actual: 51, path: 'records.edges' }],
  ])('%s → %s (400)', async (query, code, details) => {
    const answer = await graphql({ query });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ errors: [{ message: expect.stringContaining(`exceeds the limit of ${details.limit}`), extensions: { code, details } }] });
  });

  test('an operation within every limit runs', async () => {
    const answer = await graphql({ query: '{ a: modelVersionCount b: modelVersionCount modelVersions { model } }' });
    expect(answer.json).toEqual({ data: { a: 1, b: 1, modelVersions: [{ model: 'mini' }] } });
    const page = await graphql({ query: '{ records(first: 40) { totalCount pageInfo { hasNextPage } nodes { id } } }' });
    expect(page.json).toEqual({ data: { records: { totalCount: 0, pageInfo: { hasNextPage: false }, nodes: [] } } });
  });

  test('maskError keeps the three codes and their details', () => {
    for (const code of ['QUERY_TOO_DEEP', 'TOO_MANY_ALIASES', 'QUERY_TOO_COMPLEX']) {
      expect(maskError({ message: 'over', extensions: { code, details: { limit: 1, actual: 2 } } })).toEqual({ message: 'over', extensions: { code, details: { limit: 1, actual: 2 } } });
    }
  });
});

describe('unreadable bodies get a GraphQL-shaped JSON error, never a stack trace', () => {
  test('malformed JSON: 400 BAD_REQUEST', async () => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: '{"query": ' });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ errors: [{ message: 'request body is not valid JSON', extensions: { code: 'BAD_REQUEST', details: null } }] });
  });

  test('a body over SERVER_REQUEST_MAX_BYTES: 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await graphql({ query: `{ modelVersions { model } } # ${'x'.repeat(5000)}` });
    expect(answer.status).toBe(413);
    expect(answer.json.errors[0].extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE', details: null });
    expect(answer.text).not.toMatch(/node_modules|<html/i);
  });
});

describe('GRAPHQL_MAX_TOKENS, GRAPHQL_MAX_FIELDS, GRAPHQL_MAX_LITERAL_DEPTH, GRAPHQL_MAX_LITERAL_VALUES, GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_ALIASES, GRAPHQL_MAX_COST, GRAPHQL_MAX_SELECTIONS', () => {
  const env = { ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]' };

  test('default to 3000, 500, 10, 1000, 10, 15, 50000 and 2000', () => {
    expect(readSystemConfig(env).graphqlLimits).toEqual({
      maxTokens: 3000,
      maxFields: 500,
      maxLiteralDepth: 10,
      maxLiteralValues: 1000,
      maxDepth: 10,
      maxAliases: 15,
      maxCost: 50000,
      maxSelections: 2000,
    });
  });

  test.each([
    ['GRAPHQL_MAX_TOKENS', '0'],
    ['GRAPHQL_MAX_FIELDS', 'many'],
    ['GRAPHQL_MAX_LITERAL_DEPTH', '0'],
    ['GRAPHQL_MAX_LITERAL_VALUES', 'deep'],
    ['GRAPHQL_MAX_DEPTH', '0'],
    ['GRAPHQL_MAX_ALIASES', '-1'],
    ['GRAPHQL_MAX_COST', 'lots'],
    ['GRAPHQL_MAX_SELECTIONS', '0'],
  ])('%s=%s fails startup naming the variable', (variable, value) => {
    expect(() => readSystemConfig({ ...env, [variable]: value })).toThrow(new RegExp(`^${variable} must be an integer`));
  });
});
