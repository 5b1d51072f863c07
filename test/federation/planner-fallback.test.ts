import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { NO_AUTH, call } from '../support/system.js';
import { localProfileEnv } from '../subgraphs/indicators/local-profile.js';
import { stopAtScopeEnd } from '../support/cleanup.js';

/**
 * GATEWAY_PLANNER (gateway/executor/planner.ts) as an operator meets it, on the built server with
 * its default workers: Hive's planner by default, said in the `started` line; where its native
 * binary does not load (Alpine/musl, Windows: here, the binary's path made to point nowhere through
 * the loader's own NAPI_RS_NATIVE_LIBRARY_PATH), Apollo's planner, with one warning line; asked for
 * by name where it does not load, a configuration error; `apollo`, retired, is Hive's planner
 * where it loads, with one warning line.
 */
const UNLOADABLE = { NAPI_RS_NATIVE_LIBRARY_PATH: '/nonexistent/hive_router_query_planner.node' };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'planner-fallback-'));
  stopAtScopeEnd(() => rm(dir, { recursive: true, force: true }));
});

function start(name: string, env: Record<string, string>): Promise<ServerProcess> {
  return spawnServer({ ...NO_AUTH, ...localProfileEnv(), DATABASE_URL: `file:${path.join(dir, `${name}.db`)}`, ...env });
}

function logLines(server: ServerProcess): Array<Record<string, any>> {
  return server
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}

const QUERY = { query: '{ modelVersions { model version } }' };
const ANSWER = { data: { modelVersions: [{ model: 're-indicators-specification', version: '0.0.4' }] } };

test("by default, Hive's planner where it loads: the started line says so, nothing is warned, queries are answered", async () => {
  const server = await start('default', {});
  try {
    const lines = logLines(server);
    expect(lines.find((l) => l.msg === 'started')).toMatchObject({ planner: 'hive' });
    expect(lines.filter((l) => l.level === 40)).toEqual([]);
    const answer = await call(server.url('gateway'), 'POST', '/graphql', { body: QUERY });
    expect(answer.json).toEqual(ANSWER);
  } finally {
    await server.stop();
  }
});

test("where Hive's planner does not load: Apollo's planner, one warning line, queries answered", async () => {
  const server = await start('fallback', UNLOADABLE);
  try {
    const lines = logLines(server);
    expect(lines.find((l) => l.msg === 'started')).toMatchObject({ planner: 'apollo' });
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/^Hive's query planner cannot be loaded on \w+-\w+ \(.+\): planning with @apollo\/gateway's planner$/);
    for (let i = 0; i < 3; i++) expect((await call(server.url('gateway'), 'POST', '/graphql', { body: QUERY })).json).toEqual(ANSWER);
  } finally {
    await server.stop();
  }
});

test("GATEWAY_PLANNER=apollo where Hive's planner loads: Hive's all the same, one warning line saying so, queries answered", async () => {
  const server = await start('retired', { GATEWAY_PLANNER: 'apollo' });
  try {
    const lines = logLines(server);
    expect(lines.find((l) => l.msg === 'started')).toMatchObject({ planner: 'hive' });
    expect(lines.filter((l) => l.level === 40)).toEqual([
      expect.objectContaining({
        variable: 'GATEWAY_PLANNER',
        msg: "GATEWAY_PLANNER=apollo is no longer read: Hive's query planner plans every operation where its binary loads; Apollo's is only the fallback where it does not",
      }),
    ]);
    expect((await call(server.url('gateway'), 'POST', '/graphql', { body: QUERY })).json).toEqual(ANSWER);
  } finally {
    await server.stop();
  }
});

test('GATEWAY_PLANNER=hive where it does not load: the process stops with one configuration error', async () => {
  const server = start('named', { ...UNLOADABLE, GATEWAY_PLANNER: 'hive' });
  await expect(server).rejects.toThrow(/configuration error: GATEWAY_PLANNER is hive, but Hive's query planner cannot be loaded/);
});
