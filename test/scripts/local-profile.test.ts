import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectPath } from '../../kernel/project.js';
import { SAMPLE_SCORES, SAMPLE_TEMPLATE } from '../subgraphs/indicators/local-profile.js';
import { type Answer, call } from '../support/system.js';

/**
 * The local profile as a newcomer runs it: `npm start` builds, then runs `node scripts/start-local.mjs`
 * (the build is this suite's precondition, as for every spawned-server test). The script lets the
 * environment override its defaults; here only the ports and the database, so that it neither
 * collides with anything on 8080-8083/4000 nor writes `data/records.db`. Then the README's curl
 * lines, one by one, as the HTTP requests they send.
 */

const SAMPLE = projectPath('examples', 'models', 're-indicators-specification', '0.0.4');
const REQUEST_BODY = readFileSync(path.join(SAMPLE, 'example-assessment.request.json'), 'utf8');
const STARTUP_TIMEOUT_MS = 45_000;

let child: ChildProcess;
let output = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
let dir: string;
const ports = { core: 0, indicators: 0, impact: 0, records: 0, gateway: 0 };
const base = (listener: keyof typeof ports) => `http://127.0.0.1:${ports[listener]}`;

/** Ports nobody listens on right now: bound together on port 0, then released. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const found = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return found;
}

/** Resolves with the ports of the server's `started` log line (pino JSON on stdout). */
function started(): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`local profile did not start within ${STARTUP_TIMEOUT_MS} ms:\n${output}`)), STARTUP_TIMEOUT_MS);
    const check = () => {
      for (const line of output.split('\n')) {
        try {
          const entry = JSON.parse(line);
          if (entry.msg === 'started' && entry.ports) {
            clearTimeout(timer);
            child.stdout!.off('data', check);
            return resolve(entry.ports);
          }
        } catch {
          // not a JSON log line (the warning, for instance)
        }
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`local profile exited before it started:\n${output}`));
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cerise-local-'));
  const [core, indicators, impact, records, gateway] = await freePorts(5);
  Object.assign(ports, { core, indicators, impact, records, gateway });
  child = spawn(process.execPath, [projectPath('scripts', 'start-local.mjs')], {
    cwd: projectPath(),
    env: {
      PATH: process.env.PATH ?? '',
      CORE_PORT: String(core),
      INDICATORS_PORT: String(indicators),
      IMPACT_PORT: String(impact),
      RECORDS_PORT: String(records),
      GATEWAY_PORT: String(gateway),
      DATABASE_URL: `file:${path.join(dir, 'records.db')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const bound = await started();
  // The environment's ports won over the profile's defaults.
  expect(bound).toMatchObject(ports);
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
});

const postJson = (url: string, urlPath: string, body: string, headers: Record<string, string> = {}): Promise<Answer> =>
  call(url, 'POST', urlPath, { body, headers: { 'content-type': 'application/json', ...headers } });

test('the AUTH_MODE=none warning is printed', () => {
  expect(output).toMatch(/WARNING: AUTH_MODE=none/);
});

describe("the README's curl lines", () => {
  test('curl -s localhost:8080/models', async () => {
    const answer = await call(base('core'), 'GET', '/models');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ models: [{ id: 're-indicators-specification', version: '0.0.4', label: expect.stringMatching(/sample/) }] });
  });

  test('curl -s -X POST …:validate -d @example-assessment.request.json', async () => {
    const answer = await postJson(base('core'), '/models/re-indicators-specification/versions/0.0.4:validate', REQUEST_BODY);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      passed: true,
      results: [
        { kind: 'JsonSchema', passed: true, violations: [] },
        { kind: 'Shacl', passed: true, violations: [] },
        { kind: 'Owl', passed: true, violations: [] },
      ],
    });
  });

  test('curl -s …/versions/0.0.4/shacl', async () => {
    const answer = await call(base('core'), 'GET', '/models/re-indicators-specification/versions/0.0.4/shacl');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    expect(answer.text).toBe(readFileSync(path.join(SAMPLE, 'shacl.ttl'), 'utf8'));
  });

  test('curl -s localhost:8080/admin/status', async () => {
    const answer = await call(base('core'), 'GET', '/admin/status');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      status: 'ok',
      service: 'hex-core-service',
      registry: { models_loaded: 1, errors: [] },
      store: { backend: 'sqlite' },
      auth: { mode: 'none' },
      metrics_enabled: true,
    });
  });

  test('curl -s localhost:4000/graphql -d {"query":"{ modelVersions { model version label } }"}', async () => {
    const answer = await postJson(base('gateway'), '/graphql', '{"query":"{ modelVersions { model version label } }"}');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { modelVersions: [{ model: 're-indicators-specification', version: '0.0.4', label: expect.stringMatching(/sample/) }] } });
  });

  test("curl -s -X POST …:create -H 'Idempotency-Key: demo-1' -d @example-assessment.request.json", async () => {
    const payload = JSON.parse(REQUEST_BODY).payload;
    const create = () => postJson(base('core'), '/models/re-indicators-specification/versions/0.0.4:create', REQUEST_BODY, { 'Idempotency-Key': 'demo-1' });
    const answer = await create();
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ id: payload.id, model: 're-indicators-specification', version: '0.0.4', payload });
    // Running the line a second time replays the same record.
    const again = await create();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(answer.json);
  });

  test('curl -s -X POST localhost:8081/compute -d @example-assessment.request.json', async () => {
    const answer = await postJson(base('indicators'), '/compute', REQUEST_BODY);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(expect.objectContaining({ result: expect.any(Object) }));
    expect(answer.json.validation).toMatchObject({ passed: true });
  });

  test('curl -s localhost:8082/capabilities', async () => {
    const answer = await call(base('impact'), 'GET', '/capabilities');
    expect(answer.status).toBe(200);
    expect(answer.json.background.databases.length).toBeGreaterThan(0);
    expect(answer.json.background.method_count).toBeGreaterThan(0);
  });
});

// DECISIONS section 5: the sample is "labelled as a sample wherever it is listed".
describe('the sample model is labelled as a sample wherever it is listed', () => {
  const LABEL = expect.stringMatching(/\bsample\b.*not the published/i);

  test('GET /models, GraphQL modelVersions and modelVersion, before and after a registry refresh', async () => {
    const listed = async () => {
      const rest = await call(base('core'), 'GET', '/models');
      const graph = await postJson(
        base('gateway'),
        '/graphql',
        JSON.stringify({
          query: '{ modelVersions { label } modelVersion(model: "re-indicators-specification", version: "0.0.4") { label indicatorSpecifications { id } } }',
        }),
      );
      return { rest: rest.json, graph: graph.json };
    };
    const expected = {
      rest: { models: [{ id: 're-indicators-specification', version: '0.0.4', label: LABEL }] },
      graph: { data: { modelVersions: [{ label: LABEL }], modelVersion: { label: LABEL, indicatorSpecifications: [{ id: 'REcycle_Sample_Battery' }, { id: 'REuse_Sample_Laptop' }] } } },
    };
    expect(await listed()).toEqual(expected);
    expect((await call(base('core'), 'POST', '/admin/registry/refresh')).status).toBe(200);
    expect(await listed()).toEqual(expected);
  });

  test('the labelled sample is what the indicator service scores, from the sample artifacts', async () => {
    const answer = await postJson(base('indicators'), '/compute', REQUEST_BODY);
    expect(answer.json.artifact_base_url).toBe(SAMPLE_TEMPLATE.replace('{version}', '0.0.4'));
    expect(answer.json.result.total_score).toBeCloseTo(SAMPLE_SCORES.total, 12);
  });
});

describe("the README's GraphQL section", () => {
  test('a browser opening localhost:4000/graphql gets GraphiQL (GRAPHQL_IDE=true), from local assets', async () => {
    const page = await call(base('gateway'), 'GET', '/graphql', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('/ide/graphiql.min.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    expect((await call(base('gateway'), 'GET', '/ide/graphiql.min.js')).status).toBe(200);
  });

  test('curl -s localhost:4000/ and localhost:4000/health answer JSON', async () => {
    expect((await call(base('gateway'), 'GET', '/')).json).toEqual({ service: expect.any(String), graphql: '/graphql', ide: true });
    expect((await call(base('gateway'), 'GET', '/health')).json).toEqual({ status: 'ok' });
  });

  test("curl -s 'localhost:4000/graphql?query=%7B__typename%7D' -H 'apollo-require-preflight: true'", async () => {
    const answer = await call(base('gateway'), 'GET', '/graphql?query=%7B__typename%7D', { headers: { 'apollo-require-preflight': 'true' } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { __typename: 'Query' } });
  });
});

test('SIGTERM stops the local profile with exit code 0', async () => {
  child.kill('SIGTERM');
  expect(await exited).toEqual({ code: 0, signal: null });
});
