import { readFileSync } from 'node:fs';
import { Supergraph, operationFromDocument } from '@apollo/federation-internals';
import { QueryPlanner as ApolloQueryPlanner } from '@apollo/query-planner';
import { parse } from 'graphql';
import { loadHivePlanner } from '../gateway/executor/planner.js';
import { projectPath } from '../kernel/project.js';
import { type Figure, percentile, round } from './figures.js';
import { PASSPORT_QUERY } from './gateway.bench.js';

const ROUNDS = 5;

/**
 * What planning an operation the first time costs (issue 28), with each planner the planned executor
 * can run on (gateway/executor/planner.ts): the committed supergraph, one planner of each built as
 * the gateway builds it at start-up (not timed), then every operation of the project (the trusted
 * documents manifest and the gateway bench's passport query) planned once: each plan is a first
 * plan. ROUNDS rounds with fresh planners; the figure is the median of every first plan. Hive: the
 * `QueryPlanner.plan` of `@graphql-hive/router-query-planner` (Rust). Apollo: what @apollo/gateway
 * does for an operation it has not planned (`operationFromDocument` on its API schema, then
 * `QueryPlanner.buildQueryPlan`).
 */
export async function benchPlanning(): Promise<Figure[]> {
  const hive = loadHivePlanner();
  if ('error' in hive) {
    console.warn(`gateway.plan_cold_ms skipped: ${hive.error.message.split('\n')[0]}`);
    return [];
  }
  const supergraphSdl = readFileSync(projectPath('gateway', 'supergraph.graphql'), 'utf8');
  const manifest = JSON.parse(readFileSync(projectPath('gateway', 'trusted-documents.json'), 'utf8')) as { operations: Array<{ body: string; name: string }> };
  const operations = [...manifest.operations.map((o) => ({ query: o.body, name: o.name })), { query: PASSPORT_QUERY, name: 'Passport' }];
  const samples = { hive: [] as number[], apollo: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const hivePlanner = new hive.planner(supergraphSdl);
    const supergraph = Supergraph.build(supergraphSdl);
    const apiSchema = supergraph.apiSchema();
    const apolloPlanner = new ApolloQueryPlanner(supergraph);
    for (const { query, name } of operations) {
      let started = performance.now();
      hivePlanner.plan(query, name, new Set(), 0);
      samples.hive.push(performance.now() - started);
      started = performance.now();
      apolloPlanner.buildQueryPlan(operationFromDocument(apiSchema, parse(query), { operationName: name }));
      samples.apollo.push(performance.now() - started);
    }
  }
  const hiveP50 = round(percentile(samples.hive, 50), 3);
  const apolloP50 = round(percentile(samples.apollo, 50), 3);
  const note =
    `first plan of an operation, ${operations.length} operations (the trusted documents and the gateway bench's passport query) × ${ROUNDS} rounds with fresh planners over the committed supergraph, in the bench process; ` +
    `Hive's planner (@graphql-hive/router-query-planner, the default) p50 ${hiveP50} ms p99 ${round(percentile(samples.hive, 99), 3)} ms; ` +
    `Apollo's (@apollo/query-planner as @apollo/gateway runs it, the fallback) p50 ${apolloP50} ms p99 ${round(percentile(samples.apollo, 99), 3)} ms; plans are kept per operation after the first`;
  return [
    { id: 'gateway.plan_cold_ms.p50', value: hiveP50, unit: 'ms', better: 'lower', note: `Hive's planner (the default); ${note}` },
    { id: 'gateway.plan_cold_apollo_ms.p50', value: apolloP50, unit: 'ms', better: 'lower', note: `Apollo's planner; ${note}` },
    { id: 'gateway.plan_cold_hive_vs_apollo.ratio', value: round(hiveP50 / apolloP50, 2), unit: 'x', better: 'lower', note: `Hive's p50 ÷ Apollo's p50; ${note}` },
  ];
}
