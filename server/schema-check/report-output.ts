import { appendFile } from 'node:fs/promises';
import { type CommandOutput, STANDARD_OUTPUT } from '../command-output.js';
import type { CheckedChange, SchemaCheckReport } from '../schema-check.js';
import { changeLines, clientList, composersDisagree, describeReport, summaryLines } from '../schema-check.js';

export type OutputFormat = 'text' | 'json';

/**
 * The report for a person (quiet when it passes: one line), for a program (`--format json`), and,
 * on GitHub Actions, as annotations and a Markdown step summary: the same verdicts in each.
 */
export async function printReport(report: SchemaCheckReport, exitCode: number, format: OutputFormat, env: NodeJS.ProcessEnv, output = STANDARD_OUTPUT): Promise<void> {
  if (format === 'json') output.out(JSON.stringify(jsonReport(report, exitCode), null, 2));
  else for (const line of exitCode === 0 ? summaryLines(report) : describeReport(report)) output.out(line);
  if (env.GITHUB_ACTIONS === 'true') {
    for (const line of githubAnnotations(report)) output.out(line);
    if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, markdownSummary(report, exitCode));
  }
}

/** A check that could not run (exit 2): its one line, and on GitHub Actions an `::error` and a step summary too, or a pull request would show no reason. */
export async function printCannotRun(message: string, format: OutputFormat, env: NodeJS.ProcessEnv, output: CommandOutput, command = 'schema:check'): Promise<void> {
  if (format === 'json') output.out(JSON.stringify({ verdict: 'error', exitCode: 2, error: message }, null, 2));
  else output.err(message);
  if (env.GITHUB_ACTIONS !== 'true') return;
  output.out(`::error title=${command} could not run::${escapeData(message)}`);
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `## Schema check: ${COULD_NOT_RUN}\n\n${message}\n`);
}

const COULD_NOT_RUN = '⚠️ could not run';

export function jsonReport(report: SchemaCheckReport, exitCode: number) {
  return {
    verdict: exitCode === 0 ? 'safe' : exitCode === 1 ? 'breaking' : 'error',
    exitCode,
    composition: {
      subgraphs: report.subgraphs,
      composers: report.composers,
      errors: report.compositionErrors.map((e) => ({ composer: e.composer, code: e.code, message: e.message })),
      differences: report.composerDifferences,
    },
    baseline: report.baseline,
    usage: report.usage,
    changes: report.changes.map(({ change, verdict, operations, deployed, location }) => ({
      type: change.type,
      path: change.path ?? null,
      message: change.message,
      verdict,
      location: location ?? null,
      deployed,
      operations: operations.map((o) => ({ name: o.name, hash: o.hash, requests: o.requests, lastSeenAt: new Date(o.lastSeenMs).toISOString(), clients: o.clients })),
    })),
    documents: { ...report.documentsChecked, errors: report.routeErrors },
    supergraph: report.stale === null ? 'not compared' : report.stale ? 'stale' : 'up to date',
    unusedAllowListEntries: report.unusedAllowances,
  };
}

const escapeData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** Workflow commands: `::error` for what fails the check, `::notice` for a breaking change that passes on usage; a change's at its declaration. */
export function githubAnnotations(report: SchemaCheckReport): string[] {
  const lines: string[] = [];
  for (const e of report.compositionErrors) lines.push(`::error title=schema:check composition ${e.code} by ${e.composer}::${escapeData(e.message)}`);
  if (report.composerDifferences.length > 0) lines.push(`::error title=schema:check ${composersDisagree(report)}::${escapeData(report.composerDifferences.join('\n'))}`);
  for (const c of report.changes) {
    if (c.verdict === 'breaking') lines.push(`::error ${at(c)}title=schema:check BREAKING ${c.change.type} ${c.change.path ?? ''}::${escapeData(details(c))}`);
    if (c.verdict === 'unused') lines.push(`::notice ${at(c)}title=schema:check UNUSED ${c.change.type} ${c.change.path ?? ''}::${escapeData(details(c))}`);
  }
  for (const e of report.routeErrors) lines.push(`::error title=schema:check document does not validate::${escapeData(e)}`);
  if (report.stale) lines.push('::error file=gateway/supergraph.graphql,title=schema:check supergraph STALE::run `npm run compose` and commit it');
  if (report.unusedAllowances.length > 0) lines.push(`::warning file=gateway/schema-allow-list.json,title=schema:check allow-list::${report.unusedAllowances.length} entries match no change`);
  return lines;
}

/** `file=…,line=…,` of a change's declaration, escaped as a workflow command's property; nothing when unknown. */
function at({ location }: CheckedChange): string {
  if (!location) return '';
  const escape = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
  return `file=${escape(location.file)},${location.line === undefined ? '' : `line=${location.line},`}`;
}

function details(c: CheckedChange): string {
  return changeLines(c)
    .map((l) => l.trim())
    .join('\n');
}

export function markdownSummary(report: SchemaCheckReport, exitCode: number): string {
  const verdict = exitCode === 0 ? '✅ safe' : exitCode === 1 ? '❌ breaking' : COULD_NOT_RUN;
  const lines = [
    `## Schema check: ${verdict}`,
    '',
    `Baseline: ${report.baseline}. Usage: ${report.usage ? `${report.usage.requests} requests since ${report.usage.from} from ${report.usage.source}` : 'none seen'}.`,
    '',
  ];
  const listed = report.changes.filter((c) => c.verdict !== 'safe');
  if (listed.length > 0) {
    lines.push('| verdict | change | path | used by |', '|---|---|---|---|');
    for (const c of listed) {
      const users = [...c.deployed.map((d) => `${d.app} ${d.name}`), ...(c.verdict === 'breaking' ? c.operations.map((o) => `${o.name ?? o.hash.slice(0, 12)} (${clientList(o)})`) : [])];
      lines.push(`| ${c.verdict.toUpperCase()} | ${c.change.type} | \`${c.change.path ?? ''}\` | ${users.join('<br>').replace(/\|/g, '\\|') || '–'} |`);
    }
    lines.push('');
  }
  for (const e of report.compositionErrors) lines.push(`- composition by ${e.composer}: ${e.code}: ${e.message}`);
  for (const d of report.composerDifferences) lines.push(`- ${composersDisagree(report)}: ${d.replace(/\|/g, '\\|')}`);
  for (const e of report.routeErrors) lines.push(`- document does not validate: ${e.replace(/\|/g, '\\|')}`);
  if (report.stale) lines.push('- `gateway/supergraph.graphql` is stale: run `npm run compose` and commit it');
  return `${lines.join('\n')}\n`;
}
