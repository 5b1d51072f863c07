import { type HelpLines, type OptionSpecs, USAGE_HELP, USAGE_OPTIONS, helpText, parseWith } from '../schema-check/cli-options.js';
import { MAX_SDL_BYTES } from '../schema-check/given-subgraphs.js';

/** `npm run schema:publish`'s options: what is published, by whom, and the usage its check weighs changes by. */
const OPTIONS = {
  subgraph: { type: 'string', multiple: true, default: [] },
  url: { type: 'string' },
  'rollback-to': { type: 'string' },
  force: { type: 'string' },
  commit: { type: 'string' },
  ...USAGE_OPTIONS,
  help: { type: 'boolean', short: 'h', default: false },
} satisfies OptionSpecs;

const HELP: HelpLines<typeof OPTIONS> = {
  subgraph: [
    '--subgraph NAME[=FILE]',
    `the subgraph to publish, its SDL from FILE (at most ${MAX_SDL_BYTES / 1024 / 1024} MiB) or, without it, from this repository's code (\`npm run schema:print -- --subgraph NAME\`); a NAME not yet published is a new subgraph and needs FILE and --url`,
  ],
  url: ['--url ROUTING_URL', "where gateways reach it (http or https, no credentials); default: the previous version's URL of that subgraph, else none (the gateway's own SUBGRAPH_URLS)"],
  'rollback-to': ['--rollback-to ID', "publishes version ID's subgraphs again as a new version, checked against the newest like any publish"],
  force: ['--force REASON', 'publishes even when a check refuses (not when composition fails), recording REASON in the version'],
  commit: ['--commit SHA', 'the commit the version comes from (default: GITHUB_SHA)'],
  ...USAGE_HELP,
  help: ['-h, --help', 'prints this and exits'],
};

export type PublishOptions = ReturnType<typeof parsePublishOptions>;

export function publishUsage(): string {
  return helpText(
    [
      'usage: npm run schema:publish -- --subgraph NAME[=FILE] [--url ROUTING_URL] [--force REASON] [--commit SHA] [usage options]',
      '       npm run schema:publish -- --rollback-to ID [--force REASON] [--commit SHA] [usage options]',
      '(node dist/server/schema-publish.js [options] after npm run build)',
      "Composes the subgraph with the other subgraphs' latest published versions, runs schema:check's checks against the newest version,",
      'and appends the next version to the registry in DATABASE_URL when they pass (or with --force). Nothing is written when refused or unchanged.',
      'Exit 0 published or unchanged, 1 refused (the report of schema:check), 2 could not run.',
    ],
    HELP,
    [
      'environment: DATABASE_URL (the registry, in the records database; default file:./data/records.db; also the usage read unless --usage-url or --usage-file),',
      'SCHEMA_PUBLISH_AUTHOR (who publishes; default the OS user), GITHUB_SHA (the commit), SCHEMA_CHECK_TOKEN (the bearer token sent to --usage-url),',
      'GITHUB_ACTIONS=true (annotations, and a step summary in the file GITHUB_STEP_SUMMARY names)',
    ],
  );
}

export function parsePublishOptions(args: string[]) {
  return parseWith(OPTIONS, args);
}
