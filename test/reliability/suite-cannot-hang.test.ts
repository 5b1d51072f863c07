import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectPath } from '../../kernel/project.js';
import { tryConnect } from '../support/server-process.js';

/**
 * Issue 13, item 1: the suite always finishes. jest runs the suites of test/fixtures/unruly-suites/:
 * one fails half-way with a server and a child process running, one leaves a timer behind. The run
 * ends by itself with a failure, the server and the child process are gone, and the progress file
 * names what happened (`.ci/run` prints it when its timeout cuts a run).
 */
let dir: string;
let run: { code: number | null; output: string; progress: string };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'unruly-'));
  const child = spawn(
    process.execPath,
    ['--experimental-vm-modules', projectPath('node_modules', 'jest', 'bin', 'jest.js'), '--runInBand', '--config', projectPath('test', 'fixtures', 'unruly-suites', 'jest.config.js')],
    {
      cwd: projectPath(),
      env: { ...process.env, UNRULY_DIR: dir, JEST_PROGRESS_FILE: path.join(dir, 'progress.log'), JEST_EXIT_GRACE_MS: '2000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  run = { code, output, progress: readFileSync(path.join(dir, 'progress.log'), 'utf8') };
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the run ends by itself, failed', () => {
  expect(run.code).toBe(1);
  expect(run.output).toContain('failed half-way');
});

test('the server and the child process the failing test started are stopped', async () => {
  const started = JSON.parse(readFileSync(path.join(dir, 'started.json'), 'utf8')) as { upstream: string; core: string; pid: number };
  expect(await tryConnect(Number(new URL(started.upstream).port))).toBe('ECONNREFUSED');
  expect(await tryConnect(Number(new URL(started.core).port))).toBe('ECONNREFUSED');
  expect(() => process.kill(started.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
});

test('the progress file names each suite and the reason the run did not exit by itself', () => {
  expect(run.progress).toMatch(/failed test\/fixtures\/unruly-suites\/fails-half-way\.unruly\.ts/);
  expect(run.progress).toMatch(/passed test\/fixtures\/unruly-suites\/leaves-a-timer\.unruly\.ts/);
  expect(run.progress).toMatch(/jest did not exit 2 s after its last suite/);
});
