import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { PROJECT_ROOT } from '../../kernel/project.js';
import { openUsageStore } from '../../gateway/usage/sql-usage-store.js';
import { USAGE_EXPORT_FORMAT, type UsageExport, readWindow, windowStart } from '../../gateway/usage/usage-store.js';
import { DEFAULT_DATABASE_LIMITS } from '../../database/limits.js';

/** Something the check needs could not be had: exit 2, the check could not run. */
export class CannotRun extends Error {}

export interface SourceOptions {
  baseline?: string;
  baselineUrl?: string;
  baselineGit?: string;
  usageUrl?: string;
  usageFile?: string;
  /** DATABASE_URL, read by main. */
  databaseUrl?: string;
  /** SCHEMA_CHECK_TOKEN: the bearer token of the gateway's admin endpoints. */
  token?: string;
  /** GITHUB_BASE_REF: a pull request's target branch. */
  baseRef?: string;
  days: number;
}

export interface Baseline {
  sdl: string;
  /** Where it came from, as the report says it. */
  source: string;
}

const SUPERGRAPH_FILE = 'gateway/supergraph.graphql';

/**
 * The supergraph clients rely on: a file, what a running gateway serves, a git revision's
 * committed file; by default the target branch's (`origin/$GITHUB_BASE_REF` in a pull request) or
 * HEAD's, never the working tree's, which a local `npm run compose` has just rewritten. Outside a
 * git checkout the committed file is all there is, and the report says so.
 */
export async function readBaseline(options: SourceOptions, committed: () => Promise<string>): Promise<Baseline> {
  if (options.baseline) return { sdl: await readFile(options.baseline, 'utf8').catch(cannot(`baseline ${options.baseline}`)), source: options.baseline };
  if (options.baselineUrl) {
    const url = new URL('/admin/supergraph', options.baselineUrl);
    return { sdl: await (await get(url, options.token, 'baseline')).text(), source: `the gateway at ${url.origin}` };
  }
  const revision = options.baselineGit ?? (options.baseRef ? `origin/${options.baseRef}` : insideGit() ? 'HEAD' : undefined);
  if (revision === undefined) return { sdl: await committed(), source: `${SUPERGRAPH_FILE} (not a git checkout)` };
  try {
    return {
      sdl: execFileSync('git', ['show', `${revision}:${SUPERGRAPH_FILE}`], { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 }),
      source: `${revision}:${SUPERGRAPH_FILE}`,
    };
  } catch (error) {
    throw new CannotRun(`baseline ${revision}:${SUPERGRAPH_FILE}: ${String((error as { stderr?: string }).stderr ?? error).trim()}`);
  }
}

function insideGit(): boolean {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === PROJECT_ROOT.replace(/\/$/, '');
  } catch {
    return false;
  }
}

export interface UsageSource {
  usage: UsageExport;
  source: string;
}

/** Usage from a running gateway, an exported file or the database; null without any source. */
export async function readUsage(options: SourceOptions): Promise<UsageSource | null> {
  if (options.usageUrl) {
    const url = new URL(`/admin/usage?days=${options.days}`, options.usageUrl);
    return { usage: await readPages(url, options.token), source: `the gateway at ${url.origin}` };
  }
  if (options.usageFile) {
    const text = await readFile(options.usageFile, 'utf8').catch(cannot(`usage file ${options.usageFile}`));
    const usage = checked(parseJson(text, options.usageFile), options.usageFile);
    if (usage.next) throw new CannotRun(`usage file ${options.usageFile}: one page of several (save the whole window with --save-usage)`);
    return { usage, source: options.usageFile };
  }
  if (options.databaseUrl) {
    try {
      const store = await openUsageStore(options.databaseUrl, DEFAULT_DATABASE_LIMITS);
      try {
        return { usage: await readWindow(store, windowStart(options.days)), source: 'DATABASE_URL' };
      } finally {
        await store.close();
      }
    } catch (error) {
      throw new CannotRun(`usage from DATABASE_URL: ${(error as Error).message}`);
    }
  }
  return null;
}

/** Every page of a gateway's export, following `next`, as one export. */
async function readPages(first: URL, token: string | undefined): Promise<UsageExport> {
  const operations = new Map<string, UsageExport['operations'][number]>();
  const counts: UsageExport['counts'] = [];
  const seen = new Set<string>();
  let page: UsageExport;
  let url = first;
  for (;;) {
    page = checked(await (await get(url, token, 'usage')).json(), url.href);
    for (const operation of page.operations) operations.set(operation.hash, operation);
    counts.push(...page.counts);
    if (!page.next) break;
    if (seen.has(page.next)) throw new CannotRun(`usage from ${first.origin}: the pages do not end (a cursor came back twice)`);
    seen.add(page.next);
    url = new URL(first);
    url.searchParams.set('cursor', page.next);
  }
  return { ...page, operations: [...operations.values()], counts, next: null };
}

async function get(url: URL, token: string | undefined, what: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new CannotRun(`${what} from ${url.origin}: ${(error as Error).message}`);
  }
  if (!response.ok)
    throw new CannotRun(
      `${what} from ${url.origin}${url.pathname}: HTTP ${response.status}${response.status === 401 || response.status === 403 ? ' (set SCHEMA_CHECK_TOKEN to a token with the scope admin.usage)' : ''}`,
    );
  return response;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CannotRun(`${where}: not JSON`);
  }
}

function checked(value: unknown, where: string): UsageExport {
  const usage = value as Partial<UsageExport> | null;
  if (usage?.format !== USAGE_EXPORT_FORMAT || !Array.isArray(usage.operations) || !Array.isArray(usage.counts)) {
    throw new CannotRun(`${where}: not a usage export (format "${USAGE_EXPORT_FORMAT}", GET /admin/usage of the gateway)`);
  }
  return usage as UsageExport;
}

function cannot(what: string): (error: Error) => never {
  return (error) => {
    throw new CannotRun(`${what}: ${error.message}`);
  };
}
