import 'reflect-metadata';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Change, CriticalityLevel, DiffRule, diff } from '@graphql-inspector/core';
import {
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  OverlappingFieldsCanBeMergedRule,
  ValuesOfCorrectTypeRule,
  lexicographicSortSchema,
  parse,
  print,
  printSchema,
  specifiedRules,
  validate,
} from 'graphql';
import { APOLLO_COMPOSER, type Composition, type CompositionError, type SubgraphSdl, composeSubgraphs, subgraphSdls } from '../gateway/compose.js';
import { GUILD_COMPOSER, composeWithGuild } from '../gateway/guild-composition.js';
import { readCommittedSupergraph } from '../gateway/committed-supergraph.js';
import { federatedSupergraph } from '../gateway/executor/supergraph.js';
import { documentUsage } from '../gateway/usage/coordinates.js';
import { fragmentsOf } from '../pipeline/limits/measure.js';
import { type OperationUse, UsageIndex } from '../gateway/usage/usage-analysis.js';
import { type UsageExport, windowStart } from '../gateway/usage/usage-store.js';
import { FACADES, routesForInspection } from '../rest-facade/facades.js';
import { PROJECT_ROOT, projectPath } from '../kernel/project.js';
import { breaksRequestsThat } from './schema-check/change-usage.js';
import { type DeployedDocument, deployedDocuments } from './schema-check/deployed-documents.js';
import { type Baseline, CannotRun, type SourceOptions, readBaseline, readUsage } from './schema-check/sources.js';
import { type GivenSubgraph, givenSubgraph, readSdlFile, withSubgraph } from './schema-check/given-subgraphs.js';
import { registryBase, withRegistry } from './schema-check/registry-base.js';
import { type CommandOutput, STANDARD_OUTPUT } from './command-output.js';
import { type OutputFormat, printCannotRun, printReport } from './schema-check/report-output.js';
import { type Options, USAGE_OPTIONS, type UsageOptions, parseOptions, parseWith, usage as helpText } from './schema-check/cli-options.js';
import { type SourceFile, type SourceLocation, type SubgraphSource, changeLocator } from './schema-check/change-location.js';

/**
 * `npm run schema:check`: the checks a schema registry runs before a graph is published. The core
 * (`checkSchema`) takes every input as a value, so tests feed it modified subgraphs, supergraphs,
 * routes, usage and allow-lists; `main` gathers the real ones from the code, the repository, a
 * running gateway or the database (docs/DECISIONS.md, "Usage reporting and operation checks").
 */

export const ALLOW_LIST_PATH = projectPath('gateway', 'schema-allow-list.json');

/** A breaking change accepted on purpose: graphql-inspector's change `type` and `path`, and why. */
export interface AllowedChange {
  type: string;
  path: string;
  reason: string;
}

export interface AllowList {
  breakingChanges: AllowedChange[];
}

/** One REST route's GraphQL document, named `<facade> <METHOD> <path>`. */
export interface RouteOperation {
  name: string;
  operation: string;
}

/** What clients really sent, and how it is read. */
export interface UsageInput {
  usage: UsageExport;
  /** Where it came from, as the report says it. */
  source: string;
  /** The window, in days ending today (default 30). */
  days: number;
  /** A change used by at most this many requests of the window passes; `%` a share of them. */
  threshold?: { value: number; percent: boolean };
  excludedClients?: string[];
}

export interface SchemaCheckInput {
  subgraphs: SubgraphSdl[];
  /** `gateway/supergraph.graphql` as committed: the gateway serves it, so it must be the new composition. */
  committedSupergraph: string;
  /** The supergraph clients rely on, to diff against; the committed one unless given. */
  baselineSupergraph?: string;
  /** Where the baseline came from, as the report says it. */
  baselineSource?: string;
  routes: RouteOperation[];
  /** Other app deployments (frontend kit, trusted documents): always in use. */
  deployed?: DeployedDocument[];
  /** Null or absent: no usage source, every breaking change fails (as before usage reporting). */
  usage?: UsageInput | null;
  allowList: AllowList;
  /** False when a subgraph came from `--subgraph`: the committed file is not compared with the code. */
  compareCommitted?: boolean;
  /** Where each subgraph is written, for the changes' locations in annotations; none: no locations. */
  sources?: SubgraphSource[];
  /**
   * True for a publish: a document that does not validate against the baseline either fails no more
   * (a forced version let it through; it is told apart, `documentErrorsInBaseline`), so that the
   * next publish is refused only for what it breaks.
   */
  newDocumentErrorsOnly?: boolean;
}

/** A composer's error, naming the composer: a graph Hive's registry refuses is as unpublishable as one Apollo's refuses. */
export interface ComposerError extends CompositionError {
  composer: string;
}

/** `unused`: breaking, but nothing in the usage window (nor any deployed document) uses it: safe. */
export type Verdict = 'breaking' | 'allowed' | 'unused' | 'dangerous' | 'safe';

export interface CheckedChange {
  change: Change;
  verdict: Verdict;
  /** Recorded operations the change breaks (window, excluded clients left out). */
  operations: OperationUse[];
  /** Deployed documents that use what the change touches. */
  deployed: Array<{ app: string; name: string }>;
  /** Where its type or field is declared in the new subgraphs, when known. */
  location?: SourceLocation;
}

export interface SchemaCheckReport {
  subgraphs: string[];
  /** Who composes the subgraphs: Apollo's composition (the gateway serves its supergraph), then The Guild's. */
  composers: string[];
  /** The errors of the first composer that refused; none when every composer composed. */
  compositionErrors: ComposerError[];
  /** How the API schema of The Guild's supergraph differs from Apollo's, one line each; none when they are the same. */
  composerDifferences: string[];
  baseline: string;
  changes: CheckedChange[];
  /** Allow-list entries that match no change: kept from an earlier release, they can go. */
  unusedAllowances: AllowedChange[];
  usage: { source: string; from: string; days: number; requests: number; operations: number; excludedClients: string[]; threshold: number } | null;
  /** Deployed and recorded documents validated against the new API schema. */
  documentsChecked: { deployed: number; recorded: number };
  /** Kept under its old name: every known document that does not validate, the routes' included. */
  routeErrors: string[];
  /** With `newDocumentErrorsOnly`: the documents' errors left out, the baseline having them too. */
  documentErrorsInBaseline: string[];
  routesChecked: number;
  /** null: not compared (a subgraph given on the command line, or the registry's subgraphs). */
  stale: boolean | null;
  /** Apollo's composition of the subgraphs, the supergraph a gateway would serve; null when it fails. */
  supergraphSdl: string | null;
}

const COMPOSERS: Array<{ name: string; compose: (subgraphs: SubgraphSdl[]) => Composition }> = [
  { name: APOLLO_COMPOSER, compose: composeSubgraphs },
  { name: GUILD_COMPOSER, compose: composeWithGuild },
];

/** Composes with each composer in turn: every supergraph, Apollo's first, or the errors of the first composer that refuses. */
function composeWithEach(subgraphs: SubgraphSdl[]): { supergraphs: string[] } | { errors: ComposerError[] } {
  const supergraphs: string[] = [];
  for (const { name, compose } of COMPOSERS) {
    const { supergraphSdl, errors } = compose(subgraphs);
    if (!supergraphSdl) return { errors: errors.map((e) => ({ ...e, composer: name })) };
    supergraphs.push(supergraphSdl);
  }
  return { supergraphs };
}

/** Composes with Apollo's and The Guild's composition, diffs the API schema against the baseline with usage, validates the known documents, compares with the committed file. */
export async function checkSchema(input: SchemaCheckInput): Promise<SchemaCheckReport> {
  const subgraphs = input.subgraphs.map((s) => s.name);
  const composed = composeWithEach(input.subgraphs);
  const baseline = input.baselineSource ?? (input.baselineSupergraph === undefined ? 'gateway/supergraph.graphql' : 'the given baseline');
  const composers = COMPOSERS.map((c) => c.name);
  const empty = {
    subgraphs,
    composers,
    composerDifferences: [],
    baseline,
    changes: [],
    unusedAllowances: [],
    usage: null,
    documentsChecked: { deployed: 0, recorded: 0 },
    routeErrors: [],
    documentErrorsInBaseline: [],
    routesChecked: 0,
    stale: false,
    supergraphSdl: null,
  };
  if ('errors' in composed) return { ...empty, compositionErrors: composed.errors };
  const [supergraphSdl, guildSupergraphSdl] = composed.supergraphs as [string, string];
  const api = await apiSchemaOf(supergraphSdl);
  const oldApi = await apiSchemaOf(input.baselineSupergraph ?? input.committedSupergraph);
  const deployed = [...input.routes.map((r) => ({ app: 'rest-facade', name: r.name, body: r.operation })), ...(input.deployed ?? [])];
  const window = input.usage ? usageWindow(input.usage) : null;
  const locate = changeLocator(input.subgraphs, input.sources ?? []);
  const changes = (await checkedChanges(oldApi, api, deployed, window, input.allowList)).map((c) => ({ ...c, location: locate(c.change.path ?? '') }));
  const allowances = input.allowList.breakingChanges;
  const bodies = new Map(input.usage?.usage.operations.map((o) => [o.hash, o.body]) ?? []);
  const busy = window ? window.index.operationsWhere(() => true).filter((o) => o.requests > window.threshold) : [];
  // Operations kept without a signature (the `other` ones, and those recorded before signatures) count by their coordinates only.
  const recorded = busy.filter((o) => bodies.get(o.hash));
  const errorsAgainst = (schema: GraphQLSchema) => [
    ...deployed.flatMap((d) => documentErrors(`${d.app === 'rest-facade' ? '' : `${d.app} `}${d.name}`, d.body, schema)),
    ...recorded.flatMap((o) => documentErrors(`recorded ${o.name ?? o.hash.slice(0, 12)} (${clientList(o)})`, bodies.get(o.hash)!, schema, SIGNATURE_RULES)),
  ];
  const errors = errorsAgainst(api);
  const inBaseline = new Set(input.newDocumentErrorsOnly && errors.length > 0 ? errorsAgainst(oldApi) : []);
  return {
    subgraphs,
    composers,
    compositionErrors: [],
    composerDifferences: await apiDifferences(api, await apiSchemaOf(guildSupergraphSdl)),
    baseline,
    changes,
    unusedAllowances: allowances.filter((a) => !changes.some((c) => matches(a, c.change))),
    usage: window && {
      source: input.usage!.source,
      from: window.from,
      days: input.usage!.days,
      requests: window.index.totalRequests,
      operations: busy.length,
      excludedClients: input.usage!.excludedClients ?? [],
      threshold: window.threshold,
    },
    documentsChecked: { deployed: deployed.length, recorded: recorded.length },
    // Not subject to the allow-list: a facade whose document no longer validates cannot start, an app's screen breaks.
    routeErrors: errors.filter((e) => !inBaseline.has(e)),
    documentErrorsInBaseline: errors.filter((e) => inBaseline.has(e)),
    routesChecked: input.routes.length,
    stale: input.compareCommitted === false ? null : input.committedSupergraph !== supergraphSdl,
    supergraphSdl,
  };
}

interface Window {
  index: UsageIndex;
  from: string;
  /** Absolute: a share was turned into requests. */
  threshold: number;
}

function usageWindow(input: UsageInput): Window {
  const from = windowStart(input.days);
  const index = new UsageIndex(input.usage, { from, excludedClients: input.excludedClients });
  const t = input.threshold ?? { value: 0, percent: false };
  return { index, from, threshold: t.percent ? (t.value / 100) * index.totalRequests : t.value };
}

async function checkedChanges(oldApi: GraphQLSchema, api: GraphQLSchema, deployed: DeployedDocument[], window: Window | null, allowList: AllowList): Promise<CheckedChange[]> {
  const deployedUses = deployed.flatMap((d) => {
    const touched = touchedBy(d.body, oldApi);
    return touched ? [{ app: d.app, name: d.name, touched }] : [];
  });
  const found = new Map<string, Omit<CheckedChange, 'verdict' | 'change'>>();
  const affectedBy = (change: Change) => {
    const key = `${change.type} ${change.path}`;
    let affected = found.get(key);
    if (!affected) {
      const breaks = breaksRequestsThat(change);
      affected = {
        operations: window?.index.operationsWhere(breaks) ?? [],
        deployed: deployedUses.filter((d) => breaks(d.touched)).map(({ app, name }) => ({ app, name })),
      };
      found.set(key, affected);
    }
    return affected;
  };
  // graphql-inspector's usage rule: a breaking change nothing uses comes back `isSafeBasedOnUsage`.
  const rules = window ? [DiffRule.considerUsage] : [];
  const config = {
    checkUsage: async (entries: Array<{ meta: { change: Change } }>) =>
      entries.map(({ meta }) => {
        const { operations, deployed: apps } = affectedBy(meta.change);
        return apps.length === 0 && operations.reduce((sum, o) => sum + o.requests, 0) <= window!.threshold;
      }),
  };
  const changes = await diff(oldApi, api, rules, config);
  return changes.map((change) => {
    const allowListed = allowList.breakingChanges.some((a) => matches(a, change));
    // Checked again: the rule suppresses every change whose path starts with a safe one's.
    const used = () => {
      const { operations, deployed: apps } = affectedBy(change);
      return apps.length > 0 || operations.reduce((sum, o) => sum + o.requests, 0) > window!.threshold;
    };
    const verdict = verdictOf(change, allowListed, used);
    return { change, verdict, ...(verdict === 'breaking' || verdict === 'unused' ? affectedBy(change) : { operations: [], deployed: [] }) };
  });
}

/**
 * How another composer's API schema differs from Apollo's: graphql-inspector's changes from Apollo's
 * to it, or, where it names none, the first line at which the printed schemas differ (a difference
 * is never let through unnamed). The same printed schema (types, fields, arguments, descriptions,
 * deprecations, sorted) is the same API.
 */
async function apiDifferences(apollo: GraphQLSchema, other: GraphQLSchema): Promise<string[]> {
  const [ours, theirs] = [apollo, other].map((schema) => printSchema(lexicographicSortSchema(schema))) as [string, string];
  if (ours === theirs) return [];
  const changes = await diff(apollo, other);
  if (changes.length > 0) return changes.map((c) => c.message);
  const [a, b] = [ours.split('\n'), theirs.split('\n')];
  const at = a.findIndex((line, i) => line !== b[i]);
  const line = at === -1 ? a.length : at;
  return [`the printed API schemas differ at line ${line + 1}: ${JSON.stringify(a[line] ?? '')} against ${JSON.stringify(b[line] ?? '')}`];
}

/** The coordinates a deployed document touches in the old schema (null when it does not validate there). */
function touchedBy(body: string, schema: GraphQLSchema): Set<string> | null {
  try {
    const document = parse(body);
    if (validate(schema, document).length > 0) return null;
    const fragments = fragmentsOf(document);
    const touched = new Set<string>();
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const usage = documentUsage(schema, definition as OperationDefinitionNode, fragments);
      for (const c of [...usage.coordinates, ...usage.literalInputs.coordinates]) touched.add(c);
      // Variables of a deployed document may hold anything: every argument it names counts as given.
      for (const c of usage.coordinates) if (c.split('.').length === 3) touched.add(`${c}!`);
    }
    return touched;
  } catch {
    return null;
  }
}

export function clientList(operation: OperationUse): string {
  return operation.clients.map((c) => `${c.name}${c.version === 'unknown' ? '' : ` ${c.version}`}: ${c.requests}`).join(', ');
}

function matches(allowance: AllowedChange, change: Change): boolean {
  return allowance.type === change.type && allowance.path === (change.path ?? '');
}

function verdictOf(change: Change, allowListed: boolean, used: () => boolean): Verdict {
  if (change.criticality.isSafeBasedOnUsage) return allowListed ? 'allowed' : used() ? 'breaking' : 'unused';
  switch (change.criticality.level) {
    case CriticalityLevel.Breaking:
      return allowListed ? 'allowed' : 'breaking';
    case CriticalityLevel.Dangerous:
      return 'dangerous';
    default:
      return 'safe';
  }
}

/**
 * What a recorded signature is validated with: every rule but the two a signature cannot meet
 * whatever the schema, its literals being emptied (`ValuesOfCorrectTypeRule`: `{}` for an input
 * with required fields) and its aliases dropped (`OverlappingFieldsCanBeMergedRule`). What those
 * rules would catch, a changed argument or input type or a removed enum value, the coordinates do.
 */
const SIGNATURE_RULES = specifiedRules.filter((rule) => rule !== ValuesOfCorrectTypeRule && rule !== OverlappingFieldsCanBeMergedRule);

function documentErrors(name: string, body: string, api: GraphQLSchema, rules = specifiedRules): string[] {
  try {
    return validate(api, parse(body), rules).map((error) => `${name}: ${error.message}`);
  } catch (error) {
    return [`${name}: ${(error as Error).message}`];
  }
}

/**
 * The client-visible schema of a supergraph, exactly as our gateway derives it (gateway.ts): without
 * loading @apollo/gateway, a sixth of a check's CPU.
 */
export async function apiSchemaOf(supergraphSdl: string): Promise<GraphQLSchema> {
  return federatedSupergraph(supergraphSdl).apiSchema.toGraphQLJSSchema();
}

/** 2 when the check could not run (a composer refuses the subgraphs), 1 when any other check fails, 0 otherwise. */
export function exitCodeOf(report: SchemaCheckReport): 0 | 1 | 2 {
  if (report.compositionErrors.length > 0) return 2;
  const breaking = report.changes.some((c) => c.verdict === 'breaking');
  return breaking || report.composerDifferences.length > 0 || report.routeErrors.length > 0 || report.stale === true ? 1 : 0;
}

/** The report in full, as the command prints it when something fails. */
export function describeReport(report: SchemaCheckReport): string[] {
  if (report.compositionErrors.length > 0) {
    return [`composition of ${report.subgraphs.join(', ')}: FAILED by ${report.compositionErrors[0]!.composer}`, ...report.compositionErrors.map((e) => `  ${e.code}: ${e.message}`)];
  }
  const count = (verdict: Verdict) => report.changes.filter((c) => c.verdict === verdict).length;
  const { deployed, recorded } = report.documentsChecked;
  return [
    ...compositionLines(report),
    usageLine(report),
    `API changes against the baseline (${report.baseline}): ${report.changes.length} (${count('breaking')} breaking, ${count('unused')} unused in the window, ${count('allowed')} allow-listed, ${count('dangerous')} dangerous, ${count('safe')} safe)`,
    ...report.changes.filter((c) => c.verdict !== 'safe').flatMap(changeLines),
    ...allowListWarning(report),
    report.routeErrors.length === 0
      ? `operations: ${deployed + recorded} documents valid against the new API schema (${deployed} deployed, ${recorded} recorded)`
      : `operations: FAILED: documents that do not validate against the new API schema`,
    ...report.routeErrors.map((e) => `  ${e}`),
    report.stale === null
      ? "supergraph: not compared with gateway/supergraph.graphql (a subgraph given with --subgraph, or the registry's)"
      : report.stale
        ? 'supergraph: STALE: gateway/supergraph.graphql is not the composition of the subgraphs; run `npm run compose` and commit it'
        : 'supergraph: up to date',
  ];
}

/** Both composers compose; their API schemas are the same, or how The Guild's differs. */
function compositionLines(report: SchemaCheckReport): string[] {
  const composed = `composition of ${report.subgraphs.join(', ')}: ok by ${report.composers.join(' and ')}`;
  if (report.composerDifferences.length === 0) return [`${composed}, the same API schema`];
  return [`${composed}, but ${composersDisagree(report)}: FAILED`, ...report.composerDifferences.map((d) => `  ${d}`)];
}

/** What the check calls composers whose API schemas differ. */
export function composersDisagree({ composers }: SchemaCheckReport): string {
  return `${composers.at(-1)} gives another API schema than ${composers[0]}`;
}

/** What a quiet run prints: one line, and one warning line for stale allow-list entries. */
export function summaryLines(report: SchemaCheckReport): string[] {
  const count = (verdict: Verdict) => report.changes.filter((c) => c.verdict === verdict).length;
  const { deployed, recorded } = report.documentsChecked;
  const usage = report.usage ? `${report.usage.requests} requests in ${report.usage.days} days from ${report.usage.source}` : 'no usage seen (no source)';
  // Named, so that a reader of a green run sees what it let through.
  const unused = [...new Set(report.changes.filter((c) => c.verdict === 'unused').map((c) => c.change.path ?? c.change.type))];
  return [
    `schema:check: ok: ${report.changes.length} API changes against ${report.baseline} (${count('unused')} breaking but unused, ${count('allowed')} allow-listed), ${deployed + recorded} operations valid, ${usage}, the same API composed by ${report.composers.join(' and ')}${unused.length > 0 ? `; let through as unused: ${firstFew(unused)}` : ''}`,
    ...allowListWarning(report),
  ];
}

/** Up to three, then how many more: a line stays a line. */
function firstFew(items: string[]): string {
  return `${items.slice(0, 3).join(', ')}${items.length > 3 ? `, and ${items.length - 3} more` : ''}`;
}

function usageLine(report: SchemaCheckReport): string {
  const u = report.usage;
  if (!u) return 'usage: none seen (no --usage-url, --usage-file or DATABASE_URL): every breaking change fails';
  const excluded = u.excludedClients.length > 0 ? `, clients excluded: ${u.excludedClients.join(', ')}` : '';
  return `usage: ${u.requests} requests of ${u.operations} operations since ${u.from} (${u.days} days) from ${u.source}, threshold ${u.threshold} requests${excluded}`;
}

export function changeLines({ change, verdict, operations, deployed }: CheckedChange): string[] {
  const lines = [`  ${verdict.toUpperCase()} ${change.type} ${change.path ?? ''}: ${change.message.replace(/ \(non-breaking based on usage\)$/, '')}`];
  if (verdict === 'unused')
    lines.push(operations.length === 0 ? '    safe: no operation used it in the window' : `    safe: ${operations.reduce((s, o) => s + o.requests, 0)} requests, within the threshold`);
  for (const d of deployed) lines.push(`    deployed: ${d.app} ${d.name}`);
  if (verdict === 'breaking') for (const o of operations) lines.push(`    operation ${o.name ?? '(anonymous)'} ${o.hash.slice(0, 12)}: ${o.requests} requests (${clientList(o)})`);
  return lines;
}

function allowListWarning(report: SchemaCheckReport): string[] {
  const stale = report.unusedAllowances;
  if (stale.length === 0) return [];
  return [
    `warning: ${stale.length} allow-list ${stale.length === 1 ? 'entry matches' : 'entries match'} no change, remove from gateway/schema-allow-list.json: ${firstFew(stale.map((a) => `${a.type} ${a.path}`))}`,
  ];
}

/** The allow-list file; every entry needs a type, a path and a reason. */
export function parseAllowList(text: string): AllowList {
  const list = JSON.parse(text) as Partial<AllowList>;
  const entries = list.breakingChanges;
  const valid = (e: Partial<AllowedChange> | null) => [e?.type, e?.path, e?.reason].every((v) => typeof v === 'string' && v !== '');
  if (!Array.isArray(entries) || !entries.every(valid)) {
    throw new Error(`${ALLOW_LIST_PATH}: expected {"breakingChanges": [{"type", "path", "reason"}, …]}`);
  }
  return { breakingChanges: entries };
}

/** The sources the options name; usage from `databaseUrl` when neither --usage-url nor --usage-file is given (DATABASE_URL, when set). */
function sourceOptions(
  values: UsageOptions & Partial<Pick<Options, 'baseline' | 'baseline-url' | 'baseline-git'>>,
  env: NodeJS.ProcessEnv,
  databaseUrl = env.DATABASE_URL || undefined,
): SourceOptions {
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1) throw new CannotRun('--days must be a whole number of days, at least 1');
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0)) throw new CannotRun('--timeout must be a number of seconds, more than 0');
  return {
    baseline: values.baseline,
    baselineUrl: values['baseline-url'],
    baselineGit: values['baseline-git'],
    usageUrl: values['usage-url'],
    usageFile: values['usage-file'],
    databaseUrl,
    token: env.SCHEMA_CHECK_TOKEN || undefined,
    baseRef: env.GITHUB_BASE_REF || undefined,
    days,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
  };
}

/** What clients use, which a change must not break: the REST routes, the apps' other deployed documents, the usage window; and the allow-list. */
export type ClientUse = Pick<SchemaCheckInput, 'routes' | 'deployed' | 'usage' | 'allowList'>;

/** What clients use, read as the options say (usage from --usage-url, --usage-file or `databaseUrl`; by default the last 30 days of DATABASE_URL's): schema:check's and schema:publish's. */
export async function clientUse(values: UsageOptions = parseWith(USAGE_OPTIONS, []), databaseUrl?: string, env: NodeJS.ProcessEnv = process.env): Promise<ClientUse> {
  const sources = sourceOptions(values, env, databaseUrl);
  const threshold = /^(\d+(?:\.\d+)?)(%?)$/.exec(values.threshold);
  if (!threshold) throw new CannotRun('--threshold must be a number of requests (10) or a share of them (0.5%)');
  const usage = await readUsage(sources);
  return {
    routes: FACADES.flatMap((facade) =>
      routesForInspection(facade).flatMap((route) => ('operation' in route ? [{ name: `${facade.name} ${route.method} ${route.path}`, operation: print(route.operation) }] : [])),
    ),
    deployed: deployedDocuments().filter((d) => !d.app.startsWith('rest-facade:')),
    usage: usage && { ...usage, days: sources.days, threshold: { value: Number(threshold[1]), percent: threshold[2] === '%' }, excludedClients: [...values['exclude-client']] },
    allowList: parseAllowList(await readFile(ALLOW_LIST_PATH, 'utf8')),
  };
}

async function realInput(values: Options, env: NodeJS.ProcessEnv): Promise<SchemaCheckInput> {
  const given = values.subgraph.map((entry) => givenSubgraph(entry, { fileOptional: false }) as GivenSubgraph & { file: string });
  if (values.registry && (values.baseline || values['baseline-url'] || values['baseline-git']))
    throw new CannotRun('--registry is the baseline: leave out --baseline, --baseline-url and --baseline-git');
  const [clients, base] = await Promise.all([
    clientUse(values, undefined, env),
    values.registry ? withRegistry(env.DATABASE_URL, async (versions) => registryBase(await versions.newest())) : codeBase(values, env),
  ]);
  let subgraphs: SubgraphSdl[] = base.subgraphs.map(({ name, sdl }) => ({ name, sdl }));
  for (const g of given) {
    // Without the registry, the subgraphs are this repository's: a name it does not have is a typo.
    const names = subgraphs.map((s) => s.name);
    if (!values.registry && !names.includes(g.name)) throw new CannotRun(`--subgraph ${g.entry}: expected <name>=<file>, name one of ${names.join(', ')}`);
    subgraphs = withSubgraph(subgraphs, { name: g.name, sdl: await readSdlFile(g) });
  }
  const code = await subgraphSdls();
  return {
    subgraphs,
    committedSupergraph: await readCommittedSupergraph(),
    baselineSupergraph: base.baseline.sdl,
    baselineSource: base.baseline.source,
    ...clients,
    compareCommitted: given.length === 0 && !values.registry,
    sources: await Promise.all(
      subgraphs.map(async ({ name }) => {
        const file = given.find((g) => g.name === name)?.file;
        return file ? { subgraph: name, sdlFile: file } : { subgraph: name, code: code.some((s) => s.name === name) ? await codeOf(name) : [] };
      }),
    ),
  };
}

/** Without --registry: the subgraphs of the code, and the baseline the options name. */
async function codeBase(values: Options, env: NodeJS.ProcessEnv): Promise<{ subgraphs: SubgraphSdl[]; baseline: Baseline }> {
  const [subgraphs, baseline] = await Promise.all([subgraphSdls(), readBaseline(sourceOptions(values, env), readCommittedSupergraph)]);
  return { subgraphs, baseline };
}

/** A subgraph's TypeScript sources (`subgraphs/<name>/`), paths from the repository root; none where only dist/ was deployed. */
async function codeOf(subgraph: string): Promise<SourceFile[]> {
  const dir = projectPath('subgraphs', subgraph);
  const files = await readdir(dir, { recursive: true }).catch(() => []);
  return Promise.all(
    files.filter((f) => f.endsWith('.ts')).map(async (f) => ({ path: path.relative(PROJECT_ROOT, path.join(dir, f)).split(path.sep).join('/'), text: await readFile(path.join(dir, f), 'utf8') })),
  );
}

/** `--save-usage FILE`: the window's usage from its source, every page, written as one export for `--usage-file`; no check runs. */
async function saveUsage(sources: SourceOptions, file: string, output: CommandOutput): Promise<void> {
  const read = await readUsage(sources);
  if (!read) throw new CannotRun('--save-usage needs a usage source (--usage-url or DATABASE_URL)');
  await writeFile(file, JSON.stringify(read.usage));
  output.out(`schema:check: saved ${read.usage.operations.length} operations and ${read.usage.counts.length} counts since ${read.usage.from} from ${read.source} to ${file}`);
}

/**
 * `npm run schema:check` with its arguments and environment, writing to `output`: its exit code.
 * The command is this and nothing more, so a test may run it in its own process.
 */
export async function runSchemaCheck(args: string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<0 | 1 | 2> {
  let format: OutputFormat = 'text';
  try {
    const values = parseOptions(args);
    if (values.help) {
      output.out(helpText());
      return 0;
    }
    if (values.format !== 'text' && values.format !== 'json') throw new CannotRun('--format must be text or json');
    format = values.format;
    if (values['save-usage']) {
      await saveUsage(sourceOptions(values, env), values['save-usage'], output);
      return 0;
    }
    const report = await checkSchema(await realInput(values, env));
    const code = exitCodeOf(report);
    await printReport(report, code, format, env, output);
    return code;
  } catch (error) {
    await printCannotRun(`schema:check could not run: ${(error as Error).message}`, format, env, output);
    return 2;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await runSchemaCheck(process.argv.slice(2), process.env, STANDARD_OUTPUT);
