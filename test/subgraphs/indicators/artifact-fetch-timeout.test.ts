import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NO_AUTH, type TestSystem, call, startTestSystem } from '../../support/system.js';
import { json, passedReport, startServer, type TestServer } from './http-fixtures.js';

/**
 * HTTP_TIMEOUT_SECS bounds the calculation-artifact fetch end to end: through the indicator facade,
 * the gateway and the indicators subgraph, an artifact host that never answers `calculation.json`
 * (or sends its headers and then stalls the body) gives 502 CALCULATION_ARTIFACT_ERROR instead of a
 * request that hangs. No timing is asserted: the answer arriving at all (well inside the jest
 * timeout, with HTTP_TIMEOUT_SECS=1 against a host that would hold the request forever) is the point.
 */
type Behaviour = 'answer' | 'never-answer' | 'stall-body';

/** An artifact host whose `calculation.json` of each version behaves as configured; holds requests until closed. */
class HangingArtifactHost {
  readonly behaviour = new Map<string, Behaviour>();
  readonly hits = new Map<string, number>();
  private readonly held = new Set<ServerResponse>();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const match = /^\/([^/]+)\/calculation\.json$/.exec(req.url ?? '');
      const version = match?.[1];
      if (version === undefined) return void res.writeHead(404).end();
      this.hits.set(version, (this.hits.get(version) ?? 0) + 1);
      const behaviour = this.behaviour.get(version) ?? 'answer';
      if (behaviour === 'answer') return void res.writeHead(200, { 'content-type': 'application/json', etag: `"${version}"` }).end(calculation(version));
      this.held.add(res);
      res.on('close', () => this.held.delete(res));
      if (behaviour === 'stall-body') {
        const body = calculation(version);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        res.write(body.slice(0, 20));
      }
      // 'never-answer': nothing is ever written.
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function calculation(version: string): string {
  const question = { question_id: 'Q1', weight: 1, answers: [{ answer_id: 'a', score: 4 }] };
  return JSON.stringify({ model_version: version, indicator_configurations: { IND: { parameters: [{ parameter_ref: 'P1', weight: 1, questions: [question] }] } } });
}

const payload = { indicator_specification_id: 'IND', parameter_assessments: [{ parameter_id: 'P1', question_answers: [{ question_id: 'Q1', selected_answer_id: 'a' }] }] };

let core: TestServer;
let host: HangingArtifactHost;
let sut: TestSystem;
const compute = (model_version: string) => call(sut.url('indicators'), 'POST', '/compute', { body: { model_version, payload } });

beforeAll(async () => {
  core = await startServer(() => json(200, passedReport()));
  host = await new HangingArtifactHost().start();
  sut = await startTestSystem({
    ...NO_AUTH,
    REGISTRY_CATALOG_JSON: '[]',
    CORE_BASE_URL: core.url,
    ARTIFACT_BASE_URL_TEMPLATE: `${host.url}/{version}/`,
    HTTP_TIMEOUT_SECS: '1',
    // Every request revalidates, so a cached artifact's revalidation meets the hanging host too.
    INDICATORS_ARTIFACT_FRESHNESS_SECS: '0',
  });
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
  await core?.close();
});

describe('HTTP_TIMEOUT_SECS=1 bounds the calculation-artifact fetch through the indicator facade', () => {
  test('an artifact host that never answers calculation.json: 502 CALCULATION_ARTIFACT_ERROR', async () => {
    host.behaviour.set('0.0.4', 'never-answer');
    const answer = await compute('0.0.4');
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({
      code: 'CALCULATION_ARTIFACT_ERROR',
      message: 'the artifact host did not answer within 1 s',
      details: { calculation_url: `${host.url}/0.0.4/calculation.json` },
    });
    expect(host.hits.get('0.0.4')).toBe(1);
    // The delegated validation ran first and succeeded: the artifact fetch is what was bounded.
    expect(core.requests.at(-1)!.url).toBe('/models/re-indicators-specification/versions/0.0.4:validate');
  }, 30_000);

  test('an artifact host that sends its headers, then stalls the body: 502 CALCULATION_ARTIFACT_ERROR', async () => {
    host.behaviour.set('0.0.5', 'stall-body');
    const answer = await compute('0.0.5');
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({ code: 'CALCULATION_ARTIFACT_ERROR', message: expect.any(String), details: { calculation_url: `${host.url}/0.0.5/calculation.json` } });
  }, 30_000);

  test('the same through GraphQL computeIndicators', async () => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', {
      body: { query: 'mutation($input: ComputeIndicatorsInput!) { computeIndicators(input: $input) { modelVersion } }', variables: { input: { modelVersion: '0.0.4', payload } } },
    });
    expect(answer.json.errors).toEqual([expect.objectContaining({ extensions: { code: 'CALCULATION_ARTIFACT_ERROR', details: { calculation_url: `${host.url}/0.0.4/calculation.json` } } })]);
  }, 30_000);

  test('a cached artifact whose revalidation hangs: served from the cache once the timeout passes', async () => {
    // Each worker keeps its own artifact cache: one request per worker (connections of their own
    // go to each in turn) caches it on every one, and then revalidates it on every one.
    const workers = sut.logs.find((line) => line.msg === 'started')!.workerPids.length as number;
    const onEachWorker = async () => {
      const answers = [];
      for (let i = 0; i < workers; i++) answers.push(await call(sut.url('indicators'), 'POST', '/compute', { body: { model_version: '0.0.6', payload }, headers: { connection: 'close' } }));
      return answers;
    };
    host.behaviour.set('0.0.6', 'answer');
    const first = await onEachWorker();
    expect(first.map((answer) => answer.status)).toEqual(Array(workers).fill(200));
    host.behaviour.set('0.0.6', 'never-answer');
    const second = await onEachWorker();
    expect(second.map((answer) => [answer.status, answer.json.result.total_score])).toEqual(Array(workers).fill([200, first[0]!.json.result.total_score]));
    expect(host.hits.get('0.0.6')).toBe(2 * workers);
  }, 60_000);

  test('the facade kept serving throughout', async () => {
    expect((await call(sut.url('indicators'), 'GET', '/health')).json.http_timeout_secs).toBe(1);
  });
});
