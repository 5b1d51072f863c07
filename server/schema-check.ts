import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { GraphQLDataSource } from '@apollo/gateway';
import { type Change, CriticalityLevel, diff } from '@graphql-inspector/core';
import { type GraphQLSchema, parse, print, validate } from 'graphql';
import { type Composition, type SubgraphSdl, composeSubgraphs, readCommittedSupergraph, subgraphSdls } from '../gateway/compose.js';
import { apolloGateway } from '../gateway/apollo-gateway.js';
import { FACADES, routesForInspection } from '../rest-facade/facades.js';
import { projectPath } from '../kernel/project.js';

/**
 * `npm run schema:check`: the checks a schema registry runs before a graph is published. The core
 * (`checkSchema`) takes every input as a value, so tests feed it modified subgraphs, supergraphs,
 * routes and allow-lists; `main` gathers the real ones from the code and the repository.
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

export interface SchemaCheckInput {
  subgraphs: SubgraphSdl[];
  /** `gateway/supergraph.graphql` as committed: the gateway serves it, so it must be the new composition. */
  committedSupergraph: string;
  /** The supergraph clients rely on, to diff against; the committed one unless given (see DECISIONS). */
  baselineSupergraph?: string;
  routes: RouteOperation[];
  allowList: AllowList;
}

export type Verdict = 'breaking' | 'allowed' | 'dangerous' | 'safe';

export interface SchemaCheckReport {
  subgraphs: string[];
  compositionErrors: Composition['errors'];
  changes: Array<{ change: Change; verdict: Verdict }>;
  /** Allow-list entries that match no change: kept from an earlier release, they can go. */
  unusedAllowances: AllowedChange[];
  routesChecked: number;
  routeErrors: string[];
  stale: boolean;
}

/** Composes, diffs the API schema against the baseline, validates the routes, compares with the committed file. */
export async function checkSchema(input: SchemaCheckInput): Promise<SchemaCheckReport> {
  const subgraphs = input.subgraphs.map((s) => s.name);
  const composition = composeSubgraphs(input.subgraphs);
  if (!composition.supergraphSdl) {
    return { subgraphs, compositionErrors: composition.errors, changes: [], unusedAllowances: [], routesChecked: 0, routeErrors: [], stale: false };
  }
  const api = await apiSchemaOf(composition.supergraphSdl);
  const changes = await diff(await apiSchemaOf(input.baselineSupergraph ?? input.committedSupergraph), api);
  const allowances = input.allowList.breakingChanges;
  return {
    subgraphs,
    compositionErrors: [],
    changes: changes.map((change) => ({ change, verdict: verdictOf(change, allowances.some((a) => matches(a, change))) })),
    unusedAllowances: allowances.filter((a) => !changes.some((c) => matches(a, c))),
    routesChecked: input.routes.length,
    // Not subject to the allow-list: a facade whose document no longer validates cannot start.
    routeErrors: input.routes.flatMap((route) => routeErrorsOf(route, api)),
    stale: input.committedSupergraph !== composition.supergraphSdl,
  };
}

function matches(allowance: AllowedChange, change: Change): boolean {
  return allowance.type === change.type && allowance.path === (change.path ?? '');
}

function verdictOf(change: Change, allowListed: boolean): Verdict {
  switch (change.criticality.level) {
    case CriticalityLevel.Breaking:
      return allowListed ? 'allowed' : 'breaking';
    case CriticalityLevel.Dangerous:
      return 'dangerous';
    default:
      return 'safe';
  }
}

function routeErrorsOf(route: RouteOperation, api: GraphQLSchema): string[] {
  try {
    return validate(api, parse(route.operation)).map((error) => `${route.name}: ${error.message}`);
  } catch (error) {
    return [`${route.name}: ${(error as Error).message}`];
  }
}

/** No subgraph is ever called: the gateway is loaded only for the schema clients see. */
const UNCALLED: GraphQLDataSource = { process: () => Promise.reject(new Error('the schema check executes nothing')) };

/** The client-visible schema of a supergraph, exactly as our gateway derives it. */
export async function apiSchemaOf(supergraphSdl: string): Promise<GraphQLSchema> {
  const gateway = apolloGateway({ supergraphSdl, buildService: () => UNCALLED });
  try {
    return (await gateway.load()).schema;
  } finally {
    await gateway.stop();
  }
}

/** 2 when the subgraphs do not compose, 1 when any other check fails, 0 otherwise. */
export function exitCodeOf(report: SchemaCheckReport): 0 | 1 | 2 {
  if (report.compositionErrors.length > 0) return 2;
  const breaking = report.changes.some((c) => c.verdict === 'breaking');
  return breaking || report.routeErrors.length > 0 || report.stale ? 1 : 0;
}

/** The report as the lines the command prints. */
export function describeReport(report: SchemaCheckReport): string[] {
  if (report.compositionErrors.length > 0) {
    return [`composition of ${report.subgraphs.join(', ')}: FAILED`, ...report.compositionErrors.map((e) => `  ${e.code}: ${e.message}`)];
  }
  const count = (verdict: Verdict) => report.changes.filter((c) => c.verdict === verdict).length;
  return [
    `composition of ${report.subgraphs.join(', ')}: ok`,
    `API changes against the baseline: ${report.changes.length} (${count('breaking')} breaking, ${count('allowed')} allow-listed, ${count('dangerous')} dangerous, ${count('safe')} safe)`,
    ...report.changes.filter((c) => c.verdict !== 'safe').map(({ change, verdict }) => `  ${verdict.toUpperCase()} ${change.type} ${change.path ?? ''}: ${change.message}`),
    ...report.unusedAllowances.map((a) => `  allow-list entry ${a.type} ${a.path} matches no change: remove it`),
    report.routeErrors.length === 0
      ? `routes: ${report.routesChecked} operation documents valid against the new API schema`
      : `routes: FAILED: documents that do not validate against the new API schema`,
    ...report.routeErrors.map((e) => `  ${e}`),
    report.stale
      ? 'supergraph: STALE: gateway/supergraph.graphql is not the composition of the subgraphs; run `npm run compose` and commit it'
      : 'supergraph: up to date',
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

async function realInput(baselinePath: string | undefined): Promise<SchemaCheckInput> {
  return {
    subgraphs: await subgraphSdls(),
    committedSupergraph: await readCommittedSupergraph(),
    baselineSupergraph: baselinePath === undefined ? undefined : await readFile(baselinePath, 'utf8'),
    routes: FACADES.flatMap((facade) =>
      routesForInspection(facade).flatMap((route) =>
        'operation' in route
          ? [route.operation, ...(route.prelude ? [route.prelude.operation] : [])].map((operation) => ({ name: `${facade.name} ${route.method} ${route.path}`, operation: print(operation) }))
          : [],
      ),
    ),
    allowList: parseAllowList(await readFile(ALLOW_LIST_PATH, 'utf8')),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { baseline: { type: 'string' } } });
  try {
    const report = await checkSchema(await realInput(values.baseline));
    for (const line of describeReport(report)) console.log(line);
    process.exitCode = exitCodeOf(report);
  } catch (error) {
    console.error(`schema:check: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
