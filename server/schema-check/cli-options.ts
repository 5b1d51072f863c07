import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CannotRun, DEFAULT_TIMEOUT_SECONDS } from './sources.js';

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
/** Each option's line of `--help`: its form and what it does, so that none goes undocumented. */
export type HelpLines<O extends OptionSpecs> = { [K in keyof O]: [string, string] };

/** Where the usage a change is weighed by comes from, and how it is read: schema:check's and schema:publish's alike. */
export const USAGE_OPTIONS = {
  'usage-url': { type: 'string' },
  'usage-file': { type: 'string' },
  days: { type: 'string', default: '30' },
  threshold: { type: 'string', default: '0' },
  'exclude-client': { type: 'string', multiple: true, default: [] },
  timeout: { type: 'string' },
} satisfies OptionSpecs;

export const USAGE_HELP: HelpLines<typeof USAGE_OPTIONS> = {
  'usage-url': ['--usage-url URL', "a running gateway's usage: GET URL/admin/usage?days=N, every page (URL's path is kept; a URL ending in /admin/usage is used as it is)"],
  'usage-file': ['--usage-file FILE', 'usage saved with --save-usage'],
  days: ['--days N', 'the usage window, in days ending today (default 30)'],
  threshold: ['--threshold N[%]', "a breaking change used by at most N requests (N% of the window's) passes (default 0)"],
  'exclude-client': ['--exclude-client NAME', "leaves a client's usage out (repeatable)"],
  timeout: ['--timeout SECONDS', `how long a gateway URL (--baseline-url, --usage-url) may take to answer (default ${DEFAULT_TIMEOUT_SECONDS})`],
};

/** `npm run schema:check`'s options. */
const OPTIONS = {
  baseline: { type: 'string' },
  'baseline-url': { type: 'string' },
  'baseline-git': { type: 'string' },
  registry: { type: 'boolean', default: false },
  ...USAGE_OPTIONS,
  'save-usage': { type: 'string' },
  subgraph: { type: 'string', multiple: true, default: [] },
  format: { type: 'string', default: 'text' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies OptionSpecs;

const HELP: HelpLines<typeof OPTIONS> = {
  baseline: ['--baseline FILE', 'the supergraph clients rely on, read from FILE'],
  'baseline-url': ['--baseline-url URL', "a running gateway's supergraph: GET URL/admin/supergraph (URL's path is kept; a URL ending in /admin/supergraph is used as it is)"],
  'baseline-git': ['--baseline-git REF', "a git revision's gateway/supergraph.graphql (default: origin/$GITHUB_BASE_REF in a pull request, else HEAD)"],
  registry: [
    '--registry',
    "the schema registry in DATABASE_URL: its newest version is the baseline, and the subgraphs not given with --subgraph are its published ones (a subgraph in another repository checks without this one's code)",
  ],
  ...USAGE_HELP,
  'save-usage': ['--save-usage FILE', "writes the window's usage from --usage-url or DATABASE_URL to FILE, and checks nothing"],
  subgraph: [
    '--subgraph NAME=FILE',
    "a subgraph's proposed SDL instead of the code's (repeatable; `npm run schema:print -- --subgraph NAME` prints the code's; with --registry, a NAME not yet published is a new subgraph)",
  ],
  format: ['--format text|json', 'one line when it passes and the report when it fails (text, the default), or one JSON report'],
  help: ['-h, --help', 'prints this and exits'],
};

export type Options = ReturnType<typeof parseOptions>;

/** The options a usage source is read with (sources.ts). */
export type UsageOptions = Pick<Options, keyof typeof USAGE_OPTIONS>;

/** A command's `--help`: its head lines, one line per option, its tail lines. */
export function helpText<O extends OptionSpecs>(head: string[], help: HelpLines<O>, tail: string[]): string {
  const lines: Array<[string, string]> = Object.values(help);
  const width = Math.max(...lines.map(([name]) => name.length)) + 2;
  return [...head, '', ...lines.map(([name, what]) => `  ${name.padEnd(width)}${what}`), '', ...tail].join('\n');
}

export function usage(): string {
  return helpText(
    [
      'usage: npm run schema:check -- [options]   (node dist/server/schema-check.js [options] after npm run build)',
      'Composes the subgraphs, fails the breaking API changes clients use, validates the known operations, compares the committed supergraph.',
      'Exit 0 safe, 1 breaking, 2 could not run.',
    ],
    HELP,
    [
      'environment: DATABASE_URL (usage from the records database, and the registry of --registry), SCHEMA_CHECK_TOKEN (the bearer token sent to the gateway URLs, scope admin.usage;',
      'without it, user:password@ in a URL goes as HTTP Basic), GITHUB_ACTIONS=true (annotations, and a step summary in the file GITHUB_STEP_SUMMARY names)',
    ],
  );
}

/** The command line's options; one it does not know, a missing value or a stray argument cannot run (exit 2). */
export function parseOptions(args: string[]) {
  return parseWith(OPTIONS, args);
}

/** `args` read with `options`, every problem a CannotRun pointing at --help. */
export function parseWith<O extends OptionSpecs>(options: O, args: string[]) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new CannotRun(`unknown option ${/'([^']+)'/.exec(message)?.[1] ?? ''}; --help lists the options`);
    throw new CannotRun(`${message}; --help lists the options`);
  }
}
