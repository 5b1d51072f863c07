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
  /** How long a gateway URL may take to answer (`--timeout`); DEFAULT_TIMEOUT_SECONDS unless given. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_SECONDS = 60;

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
    const request = gatewayRequest('--baseline-url', options.baselineUrl, '/admin/supergraph', options);
    return { sdl: await fetchBody(request, (response) => response.text()), source: `the gateway at ${request.url.origin}` };
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
    const request = gatewayRequest('--usage-url', options.usageUrl, '/admin/usage', options);
    request.url.searchParams.set('days', String(options.days));
    return { usage: await readPages(request), source: `the gateway at ${request.url.origin}` };
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
async function readPages(first: GatewayRequest): Promise<UsageExport> {
  const operations = new Map<string, UsageExport['operations'][number]>();
  const counts: UsageExport['counts'] = [];
  const seen = new Set<string>();
  let page: UsageExport;
  let request = first;
  for (;;) {
    page = checked(await fetchBody(request, (response) => response.json()), `${request.option} ${request.url.href}`);
    for (const operation of page.operations) operations.set(operation.hash, operation);
    counts.push(...page.counts);
    if (!page.next) break;
    if (seen.has(page.next)) throw new CannotRun(`${first.option} ${first.url.href}: the pages do not end (a cursor came back twice)`);
    seen.add(page.next);
    request = { ...first, url: new URL(first.url) };
    request.url.searchParams.set('cursor', page.next);
  }
  return { ...page, operations: [...operations.values()], counts, next: null };
}

/** A request to a gateway's admin endpoint: its URL never holds credentials, so no message can show them. */
interface GatewayRequest {
  /** The option the URL came from, which every failure names. */
  option: string;
  url: URL;
  authorization?: string;
  timeoutMs: number;
}

/**
 * The endpoint under the gateway URL a user gave: its path is the gateway's prefix
 * (`https://host/dpp` → `https://host/dpp/admin/usage`), unless it already ends in the endpoint.
 * Credentials in the URL go as HTTP Basic authentication, as curl sends them, unless
 * SCHEMA_CHECK_TOKEN gives the bearer token the gateway itself wants.
 */
function gatewayRequest(option: string, given: string, endpoint: string, options: Pick<SourceOptions, 'token' | 'timeoutMs'>): GatewayRequest {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new CannotRun(`${option}: not a URL`);
  }
  const basic = url.username || url.password ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` : undefined;
  url.username = '';
  url.password = '';
  if (!url.pathname.endsWith(endpoint)) url.pathname = `${url.pathname.replace(/\/+$/, '')}${endpoint}`;
  return { option, url, authorization: options.token ? `Bearer ${options.token}` : basic, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_SECONDS * 1000 };
}

/** A gateway's answer, read by `read`; any failure names the option, the URL and its cause: refused, an HTTP status, a timeout, not JSON. */
async function fetchBody<T>({ option, url, authorization, timeoutMs }: GatewayRequest, read: (response: Response) => Promise<T>): Promise<T> {
  const failed = (cause: string) => new CannotRun(`${option} ${url.href}: ${cause}`);
  let response: Response;
  try {
    // Each connection closed after its answer, as the command's process ending closes it: run in a longer-lived process
    // (a test's), a kept-alive one would wait in the shared pool and could be taken after the gateway closed it.
    response = await fetch(url, { headers: { connection: 'close', ...(authorization ? { authorization } : {}) }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw failed(fetchFailure(error, timeoutMs));
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw failed(`HTTP ${response.status}${response.status === 401 || response.status === 403 ? ' (set SCHEMA_CHECK_TOKEN to a token with the scope admin.usage)' : ''}`);
  }
  try {
    return await read(response);
  } catch (error) {
    // By name: the error may come from another realm than this module's (a test's VM context).
    throw failed((error as Error).name === 'SyntaxError' ? 'invalid JSON' : fetchFailure(error, timeoutMs));
  }
}

/** Why a fetch failed, in a word where there is one (ECONNREFUSED, ENOTFOUND); undici's message alone is "fetch failed". */
function fetchFailure(error: unknown, timeoutMs: number): string {
  const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
  if (name === 'TimeoutError') return `timeout: no answer within ${timeoutMs / 1000} s`;
  return cause?.code ?? cause?.message ?? message;
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
