import { Agent, request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../../kernel/project.js';
import { NO_AUTH, type TestSystem, call, callOnNewConnection, startTestSystem } from '../support/system.js';

/**
 * Issue 35, row 6: `/admin/metrics` survives any client. Operation names are the clients' own: 100
 * operations named with 400,000 characters each made every later scrape a 500 ("Invalid string
 * length"), and 3,000 short distinct names filled the per-worker label cap, after which real
 * operations counted as `other`. Now a label is at most 64 characters (a longer name is cut and
 * hashed), the operations the deployment knows (the REST routes', the trusted documents', the
 * frontend kit's) always have their own, and another name gets one on its first request while few
 * names have, later only once requested again and again: a flood of names sent once never does.
 */
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
const LABEL = /graphql_operation_duration_seconds_count\{operation="([^"]*)",outcome="(?:ok|error)"\} (\d+)/g;

function postOn(agent: Agent, url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('operation labels under hostile names', () => {
  let sut: TestSystem;
  const agents: Agent[] = [];

  beforeAll(async () => {
    sut = await startTestSystem({
      ...NO_AUTH,
      REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: SAMPLE }]),
      REGISTRY_ALLOW_FILE_URLS: 'true',
      METRICS_ENABLED: 'true',
    });
  });
  afterAll(async () => {
    for (const agent of agents) agent.destroy();
    await sut?.stop();
  });

  /** Several keep-alive connections, so that both workers see the flood. */
  const flood = async (count: number, name: (i: number) => string) => {
    const lanes = Array.from({ length: 4 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    agents.push(...lanes);
    const statuses = await Promise.all(
      lanes.map(async (agent, lane) => {
        const got: number[] = [];
        for (let i = lane; i < count; i += lanes.length) got.push(await postOn(agent, `${sut.url('gateway')}/graphql`, { query: `query ${name(i)} { modelVersionCount }` }));
        return got;
      }),
    );
    expect(statuses.flat().every((status) => status === 200)).toBe(true);
  };

  const scrape = async () => {
    const answer = await call(sut.url('core'), 'GET', '/admin/metrics');
    expect(answer.status).toBe(200);
    return { text: answer.text, labels: new Map([...answer.text.matchAll(LABEL)].map((m) => [m[1]!, Number(m[2])])) };
  };

  test('100 operations named with 400,000 characters: every scrape answers, each label at most 64 characters', async () => {
    await flood(100, (i) => `N${i}_${'n'.repeat(400_000)}`);
    for (let i = 0; i < 3; i++) {
      const { text, labels } = await scrape();
      expect(text.length).toBeLessThan(2_000_000);
      expect([...labels.keys()].every((label) => label.length <= 64)).toBe(true);
    }
  });

  test('3,000 distinct short names, then real operations: the routes, the trusted documents and a busy client operation keep their labels', async () => {
    await flood(3000, (i) => `Flood${i}`);
    // Real traffic after the flood: a REST route (its operation CoreModels), a trusted document's
    // name, and a client's own operation sent again and again on one connection (one worker).
    for (let i = 0; i < 4; i++) expect((await callOnNewConnection(sut.url('core'), 'GET', '/models')).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await callOnNewConnection(sut.url('gateway'), 'POST', '/graphql', { body: { query: 'query CoreModelsCount { modelVersionCount }' } })).status).toBe(200);
    const busy = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(busy);
    for (let i = 0; i < 20; i++) expect(await postOn(busy, `${sut.url('gateway')}/graphql`, { query: 'query PassportDashboard { modelVersionCount }' })).toBe(200);

    const { labels } = await scrape();
    expect(labels.get('CoreModels')).toBeGreaterThanOrEqual(4);
    expect(labels.get('CoreModelsCount')).toBeGreaterThanOrEqual(4);
    expect(labels.get('PassportDashboard')).toBeGreaterThanOrEqual(1);
    expect(labels.get('other')).toBeGreaterThan(0);
    // The flood's names sent once: a few at most took a label, never the cap.
    expect([...labels.keys()].filter((label) => label.startsWith('Flood')).length).toBeLessThanOrEqual(200);
  });
});
