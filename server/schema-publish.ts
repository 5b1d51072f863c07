import 'reflect-metadata';
import { userInfo } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DATABASE_URL } from '../database/location.js';
import { type SchemaCheckReport, changeLines, clientUse } from './schema-check.js';
import { givenSubgraph, readSdlFile } from './schema-check/given-subgraphs.js';
import { reasonOf, versionName, withRegistry } from './schema-check/registry-base.js';
import { type CommandOutput, STANDARD_OUTPUT } from './command-output.js';
import { printCannotRun, printReport } from './schema-check/report-output.js';
import { CannotRun } from './schema-check/sources.js';
import { type PublishOptions, parsePublishOptions, publishUsage } from './schema-publish/cli-options.js';
import { type PublishOutcome, type Rollback, type SubgraphPublish, publishSubgraph, rollbackTo } from './schema-publish/publish.js';

/**
 * `npm run schema:publish`: the command line of server/schema-publish/publish.ts. It reads the
 * options and the environment into a publish or a rollback, runs it on the registry in
 * DATABASE_URL, and says what happened: exit 0 published or unchanged, 1 refused (the report of
 * schema:check), 2 could not run.
 */

const MAX_REASON_CHARS = 1000;
const MAX_AUTHOR_CHARS = 200;
const MAX_URL_CHARS = 2048;
/** Version ids are PostgreSQL integers: nine digits stay well within them. */
const VERSION_ID = /^[1-9]\d{0,8}$/;
const COMMIT_SHA = /^[0-9a-f]{7,64}$/i;

type Request = ({ kind: 'publish' } & SubgraphPublish) | ({ kind: 'rollback' } & Rollback);

/** The publish or rollback the options and the environment ask for; any problem cannot run (exit 2). */
async function requestOf(values: PublishOptions, env: NodeJS.ProcessEnv): Promise<Request> {
  const publisher = { author: authorOf(env), commit: commitOf(values.commit, env.GITHUB_SHA), force: forceOf(values.force) };
  if (values['rollback-to'] !== undefined) {
    if (values.subgraph.length > 0 || values.url !== undefined) throw new CannotRun('--rollback-to publishes an earlier version whole: leave out --subgraph and --url');
    if (!VERSION_ID.test(values['rollback-to'])) throw new CannotRun('--rollback-to must be a version id, a whole number from 1 to 999999999');
    return { kind: 'rollback', to: Number(values['rollback-to']), ...publisher };
  }
  if (values.subgraph.length !== 1) throw new CannotRun('expected one --subgraph NAME[=FILE] (or --rollback-to ID); --help lists the options');
  const given = givenSubgraph(values.subgraph[0]!, { fileOptional: true });
  const sdl = given.file === undefined ? undefined : await readSdlFile({ ...given, file: given.file });
  return { kind: 'publish', name: given.name, sdl, sdlFile: given.file, url: routingUrlOf(values.url), ...publisher };
}

function forceOf(reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  const trimmed = reason.trim();
  if (trimmed === '' || trimmed.length > MAX_REASON_CHARS) throw new CannotRun(`--force needs a reason, up to ${MAX_REASON_CHARS} characters`);
  return trimmed;
}

/** A routing URL: http or https, without credentials (versions are shown on the gateway's admin paths); never repeated in a message. */
function routingUrlOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = url.length <= MAX_URL_CHARS ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.username || parsed.password) {
    throw new CannotRun(`--url must be an http or https URL of at most ${MAX_URL_CHARS} characters, without user:password@`);
  }
  return url;
}

function commitOf(given: string | undefined, githubSha: string | undefined): string | null {
  const commit = given ?? (githubSha || undefined);
  if (commit === undefined) return null;
  if (!COMMIT_SHA.test(commit)) throw new CannotRun(`${given === undefined ? 'GITHUB_SHA' : '--commit'} must be a commit SHA (7 to 64 hex digits)`);
  return commit;
}

function authorOf(env: NodeJS.ProcessEnv): string {
  const author = env.SCHEMA_PUBLISH_AUTHOR?.trim() || osUser();
  if (author.length > MAX_AUTHOR_CHARS) throw new CannotRun(`SCHEMA_PUBLISH_AUTHOR must be at most ${MAX_AUTHOR_CHARS} characters`);
  return author;
}

/** The OS user; a container's user without a passwd entry has none. */
function osUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** What the outcome says, and its exit code. */
async function printOutcome(outcome: PublishOutcome, env: NodeJS.ProcessEnv, output: CommandOutput): Promise<0 | 1> {
  if (outcome.outcome === 'unchanged') {
    output.out(`schema:publish: unchanged: the supergraph and routing URLs are those of ${versionName(outcome.version)}; nothing written`);
    return 0;
  }
  const { report, previous } = outcome;
  if (outcome.outcome === 'refused' || outcome.version.forcedReason !== null) await printReport(report, 1, 'text', env, output);
  if (report.documentErrorsInBaseline.length > 0) {
    output.out(`schema:publish: warning: ${report.documentErrorsInBaseline.length} known documents do not validate, as against ${report.baseline} (a forced version): not this publish's doing`);
  }
  if (!previous) output.out(`schema:publish: the registry is empty: the other subgraphs are this repository's code, the baseline gateway/supergraph.graphql`);
  if (outcome.outcome === 'refused') {
    output.out(
      report.supergraphSdl === null
        ? 'schema:publish: refused: the subgraphs do not compose; nothing written (--force cannot publish what does not compose)'
        : 'schema:publish: refused: nothing written (--force REASON publishes anyway)',
    );
    return 1;
  }
  const { version } = outcome;
  const what = version.rollbackOf === null ? ` of ${version.subgraph}` : `, a rollback to version ${version.rollbackOf},`;
  const forced = version.forcedReason === null ? '' : `, FORCED past the refusal above: ${version.forcedReason}`;
  output.out(`schema:publish: published version ${version.id} (${version.supergraphHash})${what} against ${report.baseline}${forced}: ${changeCount(report)}`);
  if (version.forcedReason === null) for (const change of report.changes.filter((c) => c.verdict !== 'safe')) for (const line of changeLines(change)) output.out(line);
  return 0;
}

function changeCount(report: SchemaCheckReport): string {
  const count = (verdict: string) => report.changes.filter((c) => c.verdict === verdict).length;
  return `${report.changes.length} API changes (${count('breaking')} breaking, ${count('unused')} breaking but unused, ${count('allowed')} allow-listed, ${count('dangerous')} dangerous)`;
}

/**
 * `npm run schema:publish` with its arguments and environment, writing to `output`: its exit code.
 * The command is this and nothing more, so a test may run it in its own process.
 */
export async function runSchemaPublish(args: string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<0 | 1 | 2> {
  try {
    const values = parsePublishOptions(args);
    if (values.help) {
      output.out(publishUsage());
      return 0;
    }
    const request = await requestOf(values, env);
    const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
    const outcome = await withRegistry(databaseUrl, async (versions) => {
      const clients = await clientUse(values, databaseUrl, env);
      return request.kind === 'rollback' ? rollbackTo(versions, request, clients) : publishSubgraph(versions, request, clients);
    });
    return await printOutcome(outcome, env, output);
  } catch (error) {
    await printCannotRun(`schema:publish could not run: ${reasonOf(error)}`, 'text', env, output, 'schema:publish');
    return 2;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await runSchemaPublish(process.argv.slice(2), process.env, STANDARD_OUTPUT);
