import { execFile } from 'node:child_process';
import { projectPath } from '../../kernel/project.js';
import type { CommandOutput } from '../../server/command-output.js';

/**
 * The schema commands (`npm run schema:check`, `schema:print`, `schema:publish`) as tests run them:
 * `inProcess` calls the command's `run…` function (server/schema-check.ts, schema-print.ts,
 * schema-publish.ts: all the command line does) with the arguments, the environment and an output
 * that collects its lines, in this jest process, with no module load per run; `commandLine` runs
 * `node dist/server/<script>.js` on this tree's own build (`npm test` builds first), as the npm
 * script does, for the exit codes and output as a user sees them.
 */

export type Script = 'schema-check' | 'schema-print' | 'schema-publish';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** What the commands read from the environment: only what the test gives. */
const READ_FROM_ENV = ['DATABASE_URL', 'GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'GITHUB_BASE_REF', 'GITHUB_SHA', 'SCHEMA_CHECK_TOKEN', 'SCHEMA_PUBLISH_AUTHOR'];

/** The environment a command sees: this process's, without what the commands read, and `env` over it. */
export function commandEnvironment(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !READ_FROM_ENV.includes(k)));
  return { ...inherited, ...env };
}

/** `node dist/server/<script>.js ARGS`, as the npm script runs it after its build. */
export function commandLine(script: Script, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [projectPath('dist', 'server', `${script}.js`), ...args], { cwd: projectPath(), env: commandEnvironment(env), maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

type Command = (args: string[], env: NodeJS.ProcessEnv, output: CommandOutput) => Promise<number>;

/** Each command's module, loaded when a test first runs it here: a suite that runs only command lines loads none. */
const COMMANDS: Record<Script, () => Promise<Command>> = {
  'schema-check': async () => (await import('../../server/schema-check.js')).runSchemaCheck,
  'schema-print': async () => {
    const { runSchemaPrint } = await import('../../server/schema-print.js');
    return (args, _env, output) => runSchemaPrint(args, output);
  },
  'schema-publish': async () => (await import('../../server/schema-publish.js')).runSchemaPublish,
};

/** The command run in this process: its exit code, and its lines as its standard output and error would hold them. */
export async function inProcess(script: Script, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const run = { stdout: '', stderr: '' };
  const command = await COMMANDS[script]();
  const code = await command(args, commandEnvironment(env), { out: (line) => (run.stdout += `${line}\n`), err: (line) => (run.stderr += `${line}\n`) });
  return { code, ...run };
}
