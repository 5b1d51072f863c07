import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { subgraphSdls } from '../gateway/compose.js';
import { SUBGRAPH_NAMES } from '../subgraphs/names.js';
import { type CommandOutput, STANDARD_OUTPUT } from './command-output.js';

/**
 * `npm run schema:print -- --subgraph NAME`: a subgraph's SDL as the code builds it, the very SDL
 * composition reads (gateway/compose.ts), so that a subgraph team can edit it and check the edit
 * with `npm run schema:check -- --subgraph NAME=FILE`.
 */

const USAGE = `usage: npm run schema:print -- --subgraph NAME   (NAME one of ${SUBGRAPH_NAMES.join(', ')})
Prints that subgraph's SDL as composition reads it, for schema:check --subgraph NAME=FILE.`;

/** The command line: it names exactly one known subgraph, else `problem` says what is wrong. */
function commandLine(args: string[]): { help: boolean; subgraph?: string; problem: string | null } {
  try {
    const { values } = parseArgs({ args, options: { subgraph: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    const { subgraph } = values;
    const problem = subgraph === undefined ? 'expected --subgraph NAME' : (SUBGRAPH_NAMES as readonly string[]).includes(subgraph) ? null : `no subgraph named ${subgraph}`;
    return { help: values.help === true, subgraph, problem };
  } catch (error) {
    return { help: false, problem: (error as Error).message };
  }
}

/** `npm run schema:print` with its arguments, writing to `output`: its exit code. */
export async function runSchemaPrint(args: string[], output: CommandOutput): Promise<0 | 2> {
  const { help, subgraph, problem } = commandLine(args);
  if (help) {
    output.out(USAGE);
    return 0;
  }
  if (problem) {
    output.err(`schema:print: ${problem}\n${USAGE}`);
    return 2;
  }
  const { sdl } = (await subgraphSdls()).find((s) => s.name === subgraph)!;
  output.out(sdl.replace(/\n$/, ''));
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await runSchemaPrint(process.argv.slice(2), STANDARD_OUTPUT);
