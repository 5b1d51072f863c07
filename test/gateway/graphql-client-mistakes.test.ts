import { Writable } from 'node:stream';
import { pino } from 'pino';
import { readSystemConfig } from '../../server/config.js';
import { startSystem } from '../../server/system.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { miniModelHost } from '../support/mini-model.js';
import { NO_AUTH, call } from '../support/system.js';
import { stopAtScopeEnd } from '../support/cleanup.js';

/**
 * Issue 13, item 3: a client's mistakes are 400s that say what to change, not 500 INTERNAL_ERROR;
 * with introspection off, no message reveals a name of the schema.
 */
let host: ArtifactHost;
let gateway: string;
const logged: string[] = [];

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  const config = readSystemConfig({ ...mini.env, ...NO_AUTH, SERVER_HOST: '127.0.0.1', CORE_PORT: '0', INDICATORS_PORT: '0', IMPACT_PORT: '0', RECORDS_PORT: '0', GATEWAY_PORT: '0' });
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _encoding, done) => (logged.push(chunk.toString()), done()) }));
  const system = await startSystem(config, { logger });
  stopAtScopeEnd(() => system.stop());
  gateway = `http://127.0.0.1:${system.ports.gateway}`;
});
afterAll(() => host?.stop());

const graphql = (body: unknown) => call(gateway, 'POST', '/graphql', { body });

test.each([
  [
    'several operations and no operationName',
    { query: 'query A { modelVersionCount } query B { modelVersions { model } }' },
    'the document holds several operations: name the one to run in operationName',
  ],
  ['an operationName the document does not hold', { query: 'query A { modelVersionCount }', operationName: 'B' }, 'the document holds no operation named "B"'],
  ['a subscription', { query: 'subscription { modelVersionCount }' }, 'subscriptions are not supported: this graph has no Subscription type'],
])('%s: 400 OPERATION_RESOLUTION_FAILURE saying what to change', async (_case, body, message) => {
  const answer = await graphql(body);
  expect(answer.status).toBe(400);
  expect(answer.json).toEqual({ errors: [{ message, extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }] });
});

test('with introspection off, a misspelt field gets no "Did you mean" naming the real ones', async () => {
  const field = await graphql({ query: '{ model }' });
  expect(field.json.errors[0].message).toBe('Cannot query field "model" on type "Query".');
  const argument = await graphql({ query: '{ modelVersion(model: "mini", versio: "1.0") { model } }' });
  expect(argument.json.errors.map((e: { message: string }) => e.message).join(' ')).not.toMatch(/Did you mean/);
});

test('introspection off: the message names the setting that turns it on', async () => {
  const answer = await graphql({ query: '{ __schema { types { name } } }' });
  expect(answer.status).toBe(400);
  expect(answer.json.errors).toEqual([
    expect.objectContaining({ message: 'introspection is disabled on this server: set GRAPHQL_INTROSPECTION=true to enable it', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
  ]);
  expect((await graphql({ query: '{ __typename }' })).json).toEqual({ data: { __typename: 'Query' } });
});

test('none of these is a server failure: nothing at error level in the log', () => {
  expect(logged.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
});
