import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { miniModelHost } from '../support/mini-model.js';
import type { ArtifactHost } from '../support/artifact-host.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { stopAtScopeEnd } from '../support/cleanup.js';

/**
 * The request id concern (pipeline/request-id.ts) at both doors and across the hop to a
 * remote subgraph: a well-formed incoming `x-request-id` is answered back and sent on, so a trace
 * joins up; anything else is replaced by a new id. What is tested is a plugin of the pipeline, not
 * the process layout: the four roles run in this jest process (their hop is real HTTP).
 */
const SECRET = { GATEWAY_SUBGRAPH_SECRET: 'test-gateway-subgraph-secret' };
let host: ArtifactHost;
let models: TestSystem;
let edge: TestSystem;
/** The x-request-id of every request the gateway sent the models subgraph. */
const forwarded: string[] = [];

/** A real HTTP hop in front of the models subgraph that notes the request id each fetch carries. */
async function recordingHop(target: string): Promise<string> {
  const server = createServer((req, res) => {
    forwarded.push(String(req.headers['x-request-id']));
    const upstream = httpRequest(target + req.url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stopAtScopeEnd(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  const env = { ...mini.env, ...NO_AUTH, ...SECRET };
  models = await startInProcessSystem({ ...env, PROCESS_ROLE: 'subgraph', SUBGRAPH: 'models' });
  const indicators = await startInProcessSystem({ ...env, PROCESS_ROLE: 'subgraph', SUBGRAPH: 'indicators' });
  const impact = await startInProcessSystem({ ...env, PROCESS_ROLE: 'subgraph', SUBGRAPH: 'impact' });
  edge = await startInProcessSystem({
    ...NO_AUTH,
    ...SECRET,
    PROCESS_ROLE: 'gateway',
    MODELS_SUBGRAPH_URL: `${await recordingHop(models.url('subgraph:models'))}/graphql`,
    INDICATORS_SUBGRAPH_URL: `${indicators.url('subgraph:indicators')}/graphql`,
    IMPACT_SUBGRAPH_URL: `${impact.url('subgraph:impact')}/graphql`,
  });
});
afterAll(() => host?.stop());

test("a REST request's id is answered back and reaches the subgraph", async () => {
  forwarded.length = 0;
  const answer = await call(edge.url('core'), 'GET', '/models', { headers: { 'x-request-id': 'trace-rest-1' } });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-request-id')).toBe('trace-rest-1');
  expect(forwarded).toEqual(['trace-rest-1']);
});

test("a /graphql request's id is answered back and reaches the subgraph", async () => {
  forwarded.length = 0;
  const answer = await call(edge.url('gateway'), 'POST', '/graphql', { body: { query: '{ modelVersions { model } }' }, headers: { 'x-request-id': 'trace-graphql-1' } });
  expect(answer.headers.get('x-request-id')).toBe('trace-graphql-1');
  expect(forwarded).toEqual(['trace-graphql-1']);
});

test.each([
  ['too long', 'x'.repeat(129)],
  ['with a space', 'two words'],
  ['with a slash', 'a/b'],
])('an id %s is replaced by a new one, sent on', async (_what, id) => {
  forwarded.length = 0;
  const answer = await call(edge.url('core'), 'GET', '/models', { headers: { 'x-request-id': id } });
  const issued = answer.headers.get('x-request-id')!;
  expect(issued).toMatch(/^[0-9a-f-]{36}$/);
  expect(forwarded).toEqual([issued]);
});
