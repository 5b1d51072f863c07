import 'reflect-metadata';
import { execSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { projectPath } from '../kernel/project.js';
import { type Figure, meetsTarget } from './figures.js';
import { benchRegistryLoad } from './registry.bench.js';
import { benchShacl } from './validation.bench.js';
import { benchFacade } from './facade.bench.js';
import { benchImpact } from './impact.bench.js';
import { benchIndicators } from './indicators.bench.js';
import { benchGateway } from './gateway.bench.js';
import { benchFetches } from './fetches.bench.js';
import { benchBudget } from './budget.bench.js';
import { benchPlanning } from './planning.bench.js';
import { benchRecords } from './records.bench.js';
import { benchSoak } from './soak.bench.js';
import { benchGrowth } from './growth.bench.js';
import { benchMemory } from './memory.bench.js';
import { benchGraphqlLimits } from './graphql-limits.bench.js';
import { benchEntities } from './entities.bench.js';
import { benchLargeAnswers } from './large-answers.bench.js';
import { benchScale } from './scale.bench.js';
import { benchWorkers } from './workers.bench.js';
import { benchSchemaCheck, benchUsage } from './usage.bench.js';
import { benchSchemaRegistry } from './schema-registry.bench.js';

/**
 * Every group of figures, in run order; `--only <prefix>[,<prefix>…]` runs the groups whose prefix matches one. A
 * group marked `whenNamed` (the ten-minute soak) runs only when `--only` names it.
 */
const GROUPS: Array<{ prefix: string; run: (only?: string) => Promise<Figure[]>; whenNamed?: boolean }> = [
  { prefix: 'load', run: benchRegistryLoad },
  { prefix: 'shacl', run: benchShacl },
  { prefix: 'facade', run: benchFacade },
  { prefix: 'indicators', run: benchIndicators },
  { prefix: 'impact', run: benchImpact },
  { prefix: 'gateway', run: benchGateway },
  // gateway.budget_overhead.*: its own prefix, so that it runs without the whole gateway comparison
  { prefix: 'budget', run: benchBudget },
  { prefix: 'gateway.plan', run: benchPlanning },
  // gateway.fetches.*: what each gateway sends the subgraphs (issue 39), without the whole gateway comparison
  { prefix: 'gateway.fetches', run: benchFetches },
  { prefix: 'graphql', run: benchGraphqlLimits },
  // graphql.entities.*: its own prefix, so that it runs without the hostile documents
  { prefix: 'graphql.entities', run: benchEntities },
  { prefix: 'graphql.concurrent_large_answers', run: benchLargeAnswers },
  { prefix: 'records', run: benchRecords },
  { prefix: 'growth', run: benchGrowth },
  { prefix: 'memory', run: benchMemory },
  { prefix: 'scale', run: benchWorkers },
  { prefix: 'scale', run: benchScale },
  { prefix: 'usage', run: benchUsage },
  { prefix: 'schema_check', run: benchSchemaCheck },
  { prefix: 'registry', run: benchSchemaRegistry },
  { prefix: 'soak', run: benchSoak, whenNamed: true },
];

async function main(): Promise<void> {
  const only = onlyPrefixes(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const figures: Figure[] = [];
  const failed: string[] = [];
  const write = () =>
    writeFileSync(projectPath('bench-results.json'), JSON.stringify({ commit: gitSha(), started_at: startedAt, machine: { cpus: os.cpus().length, node: process.version }, figures }, null, 2) + '\n');
  for (const group of GROUPS) {
    const named = only?.find((prefix) => group.prefix.startsWith(prefix) || (prefix.startsWith(group.prefix) && !narrowerGroup(group.prefix, prefix)));
    if (only && named === undefined) continue;
    if (group.whenNamed && !named?.startsWith(group.prefix)) continue;
    process.stderr.write(`running ${group.prefix} …\n`);
    // A group that fails is named at the end and the others still run: a long run keeps what it measured.
    try {
      const measured = await group.run(named);
      figures.push(...measured.filter((f) => !named || f.id.startsWith(named) || named.startsWith(group.prefix)), rssAfter(group.prefix));
    } catch (error) {
      process.stderr.write(`${group.prefix} failed: ${(error as Error).stack}\n`);
      failed.push(group.prefix);
    }
    write(); // after every group, so that an interrupted run leaves what it measured
  }
  printTable(figures);
  if (failed.length > 0) {
    console.error(`failed: ${failed.join(', ')} (their figures are missing)`);
    process.exitCode = 1;
  }
}

/** Issue 7, memory: RSS after each run. Servers in processes of their own report theirs as well. */
function rssAfter(prefix: string): Figure {
  return {
    id: `memory.rss_mb.bench_after_${prefix}`,
    value: Math.round(process.memoryUsage().rss / 2 ** 20),
    unit: 'MB',
    better: 'lower',
    note: `RSS of the benchmark process right after the ${prefix} figures: the systems it started in this process ran here`,
  };
}

/** Whether `named` is within a group of its own narrower than `prefix` (`graphql.concurrent_large_answers` is not the `graphql` group's). */
function narrowerGroup(prefix: string, named: string): boolean {
  return GROUPS.some((group) => group.prefix.length > prefix.length && group.prefix.startsWith(prefix) && named.startsWith(group.prefix));
}

/** `--only gateway` or `--only gateway,scale`: the groups whose prefix matches one of them. */
function onlyPrefixes(args: string[]): string[] | undefined {
  const index = args.indexOf('--only');
  return index >= 0 ? (args[index + 1] ?? '').split(',').filter(Boolean) : undefined;
}

function printTable(figures: Figure[]): void {
  const rows = figures.map((f) => {
    const verdict = meetsTarget(f);
    return [f.id, `${f.value} ${f.unit}`, f.target === undefined ? '(report)' : `${f.better === 'lower' ? '≤' : '≥'} ${f.target}`, verdict === undefined ? '' : verdict ? 'ok' : 'MISSED'];
  });
  const header = ['figure', 'value', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log('');
  for (const f of figures) console.log(`${f.id}: ${f.note}`);
}

function gitSha(): string {
  try {
    return execSync('git rev-parse HEAD', { cwd: projectPath(), encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

// Every figure measures the system as deployed (docs/DECISIONS.md, GraphQL): NODE_ENV=production
// (graphql-js's development-mode checks cost the GraphQL paths up to 10% of their CPU otherwise).
if (process.env.NODE_ENV === 'production') await main();
else process.exit(spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } }).status ?? 1);
