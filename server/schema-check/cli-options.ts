import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CannotRun, DEFAULT_TIMEOUT_SECONDS } from './sources.js';

/** `npm run schema:check`'s options: each with its line of `--help`, so none goes undocumented. */
const OPTIONS = {
  baseline: { type: 'string' },
  'baseline-url': { type: 'string' },
  'baseline-git': { type: 'string' },
  'usage-url': { type: 'string' },
  'usage-file': { type: 'string' },
  'save-usage': { type: 'string' },
  days: { type: 'string', default: '30' },
  threshold: { type: 'string', default: '0' },
  'exclude-client': { type: 'string', multiple: true, default: [] },
  subgraph: { type: 'string', multiple: true, default: [] },
  format: { type: 'string', default: 'text' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies ParseArgsConfig['options'];

const HELP: { [O in keyof typeof OPTIONS]: [string, string] } = {
  baseline: ['--baseline FILE', 'the supergraph clients rely on, read from FILE'],
  'baseline-url': ['--baseline-url URL', "a running gateway's supergraph: GET URL/admin/supergraph (URL's path is kept; a URL ending in /admin/supergraph is used as it is)"],
  'baseline-git': ['--baseline-git REF', "a git revision's gateway/supergraph.graphql (default: origin/$GITHUB_BASE_REF in a pull request, else HEAD)"],
  'usage-url': ['--usage-url URL', "a running gateway's usage: GET URL/admin/usage?days=N, every page (URL's path is kept; a URL ending in /admin/usage is used as it is)"],
  'usage-file': ['--usage-file FILE', 'usage saved with --save-usage'],
  'save-usage': ['--save-usage FILE', "writes the window's usage from --usage-url or DATABASE_URL to FILE, and checks nothing"],
  days: ['--days N', 'the usage window, in days ending today (default 30)'],
  threshold: ['--threshold N[%]', "a breaking change used by at most N requests (N% of the window's) passes (default 0)"],
  'exclude-client': ['--exclude-client NAME', "leaves a client's usage out (repeatable)"],
  subgraph: ['--subgraph NAME=FILE', "a subgraph's proposed SDL instead of the code's (repeatable; `npm run schema:print -- --subgraph NAME` prints the code's)"],
  format: ['--format text|json', 'one line when it passes and the report when it fails (text, the default), or one JSON report'],
  timeout: ['--timeout SECONDS', `how long --baseline-url and --usage-url may take to answer (default ${DEFAULT_TIMEOUT_SECONDS})`],
  help: ['-h, --help', 'prints this and exits'],
};

export type Options = ReturnType<typeof parseOptions>;

export function usage(): string {
  const width = Math.max(...Object.values(HELP).map(([name]) => name.length)) + 2;
  return [
    'usage: npm run schema:check -- [options]   (node dist/server/schema-check.js [options] after npm run build)',
    'Composes the subgraphs, fails the breaking API changes clients use, validates the known operations, compares the committed supergraph.',
    'Exit 0 safe, 1 breaking, 2 could not run.',
    '',
    ...Object.values(HELP).map(([name, what]) => `  ${name.padEnd(width)}${what}`),
    '',
    'environment: DATABASE_URL (usage from the records database), SCHEMA_CHECK_TOKEN (the bearer token sent to the gateway URLs, scope admin.usage;',
    'without it, user:password@ in a URL goes as HTTP Basic), GITHUB_ACTIONS=true (annotations, and a step summary in the file GITHUB_STEP_SUMMARY names)',
  ].join('\n');
}

/** The command line's options; one it does not know, a missing value or a stray argument cannot run (exit 2). */
export function parseOptions(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS }).values;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new CannotRun(`unknown option ${/'([^']+)'/.exec(message)?.[1] ?? ''}; --help lists the options`);
    throw new CannotRun(`${message}; --help lists the options`);
  }
}
