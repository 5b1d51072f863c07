import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localProfileEnv } from '../subgraphs/indicators/local-profile.js';
import { stopAtScopeEnd } from '../support/cleanup.js';
import { eventually } from '../support/load-loop.js';
import { spawnServer } from '../support/server-process.js';
import { NO_AUTH, call } from '../support/system.js';

/**
 * SHUTDOWN_DRAIN_DELAY_MS: a process told to stop first says so on the probes a load balancer
 * checks (503) while it goes on serving everything else for the delay, each answer saying
 * `Connection: close`; only then does it drain and exit, still with 0.
 */
const STOPPING = { status: 'not_ready', reasons: ['the process is stopping'] };

test('after SIGTERM the probes answer 503 and everything else is still served, then the process exits 0', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cerise-drain-delay-'));
  stopAtScopeEnd(() => rmSync(dir, { recursive: true, force: true }));
  // Long enough for the requests below on any machine; the exit waits for it.
  const server = await spawnServer({ ...NO_AUTH, ...localProfileEnv(), DATABASE_URL: `file:${path.join(dir, 'records.db')}`, SHUTDOWN_DRAIN_DELAY_MS: '5000' });
  expect((await call(server.url('core'), 'GET', '/admin/ready', { headers: { connection: 'close' } })).status).toBe(200);

  server.signal('SIGTERM');
  // The primary passes the signal to each worker in turn, so one 503 says only that one worker has
  // heard it; a round in which every probe of every door says so (each door's connections go to the
  // workers in turn, so two rounds reach both) says they all have. Each probe on a connection of its
  // own, as a load balancer's health check: a pooled one can reach its keep-alive end just as it is
  // reused (ECONNRESET on a busy machine).
  const probe = (door: string, path: string) => call(server.url(door), 'GET', path, { headers: { connection: 'close' } });
  const probeRound = () => Promise.all([probe('core', '/admin/ready'), probe('records', '/ready'), probe('gateway', '/health')]);
  const everyWorkerStopping = async () => {
    const answers = [...(await probeRound()), ...(await probeRound())];
    return answers.every((answer) => answer.status === 503) && answers;
  };
  const probes = await eventually(everyWorkerStopping);
  expect(probes && probes.map((answer) => [answer.status, answer.json])).toEqual(Array(6).fill([503, STOPPING]));
  const models = await call(server.url('core'), 'GET', '/models');
  expect(models.status).toBe(200);
  expect(models.headers.get('connection')).toBe('close');
  expect((await call(server.url('core'), 'GET', '/admin/health')).status).toBe(200);

  expect(await server.exited).toEqual({ code: 0, signal: null });
});
