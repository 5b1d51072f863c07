import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { Supergraph } from '@apollo/federation-internals';
import { type DocumentNode, parse } from 'graphql';
import { composeSubgraphs } from '../../gateway/compose.js';
import { InProcessClient } from '../../gateway/executor/in-process-client.js';
import type { OperationRequest } from '../../gateway/executor/executor.js';
import { HivePlannedOperations } from '../../gateway/executor/hive/hive-planned-operations.js';
import type { SubgraphClient } from '../../gateway/executor/subgraph-client.js';
import { loadHivePlanner } from '../../gateway/executor/planner.js';
import { executeStep } from '../../pipeline/graphql-run.js';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import { NO_BUDGET, type RequestBudget, requestBudget } from '../../kernel/request-budget.js';
import { FEDERATION_LINK } from './tiny-federation.js';

/**
 * Issue 35, what to build 1: planning cannot outlive its request. Hive's planner runs off the event
 * loop, so nothing stopped it: the 24-fragment chain planned on for minutes after its 504. Now the
 * request budget's signal reaches the planner, which stops searching when the deadline passes; the
 * stopped planning is not kept, so the operation is planned again by the next request. (What the
 * planner does before it searches, inlining every fragment spread, cannot be stopped: that part is
 * bounded by GRAPHQL_MAX_SELECTIONS at the door, test/security/fragment-expansion.test.ts; here the
 * executor is called directly, so a chain of 16 fragments reaches the planner and keeps it busy
 * long past a deadline of 1 ms.)
 */
const hive = loadHivePlanner();
const describeHive = 'planner' in hive ? describe : describe.skip;

const things = buildSubgraphSchema({
  typeDefs: parse(`${FEDERATION_LINK} type Query { things: [Thing!]! } type Thing @key(fields: "id") { id: ID! name: String! }`),
  resolvers: { Query: { things: () => [{ id: '1', name: 'one' }] } },
});

/** A chain of 16 fragments, each spreading the next twice: 3 × 2^16 selections for the planner to inline. */
function chainDocument(): DocumentNode {
  const fragments = Array.from({ length: 16 }, (_, i) => `fragment F${i} on Thing { ...F${i + 1} ...F${i + 1} }`).join(' ');
  return parse(`{ things { ...F0 } } ${fragments} fragment F16 on Thing { name }`);
}

function contextWith(budget: RequestBudget): RequestContext {
  const trace = { requestId: 'r', failures: [], budget };
  const nobody = () => Promise.reject(new Error('no caller in this test'));
  return { requestId: 'r', trace, budget, credentials: {}, identity: nobody, authorize: nobody, forwardedCredentials: async () => ({}) };
}

describeHive("Hive's planning within the request's deadline", () => {
  let operations: HivePlannedOperations;
  let fetches = 0;
  const inProcess = new InProcessClient(things);
  const subgraphs: Record<string, SubgraphClient> = {
    things: {
      fetch(request, context) {
        fetches += 1;
        return inProcess.fetch(request, context);
      },
    },
  };
  const request = (document: DocumentNode, budget: RequestBudget): OperationRequest => ({ document, operationName: undefined, variables: {}, context: contextWith(budget) });
  /** A deadline of 1 ms, armed as the runner arms every request's (executeStep). */
  const expiring = () => requestBudget({ maxDurationMs: 1, maxResponseBytes: 0, maxRecordsRead: 0 });

  beforeAll(() => {
    const { supergraphSdl, errors } = composeSubgraphs([{ name: 'things', sdl: printSubgraphSchema(things) }]);
    if (!supergraphSdl) throw new Error(errors.map((e) => e.message).join('; '));
    if (!('planner' in hive)) return;
    operations = new HivePlannedOperations(hive.planner, Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema(), supergraphSdl);
  });
  beforeEach(() => {
    fetches = 0;
  });

  test('the deadline stops the planning: the request ends with DEADLINE_EXCEEDED, no subgraph called; the next request plans again and is answered', async () => {
    const document = chainDocument();
    const budget = expiring();
    const running = operations.execute(request(document, budget), subgraphs);
    const answered = await executeStep(budget, () => running);
    expect(answered?.errors?.[0]?.extensions.code).toBe('DEADLINE_EXCEEDED');
    // The executor itself ends, not only the answer: its planning was stopped, nothing ran after it.
    await expect(running).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(fetches).toBe(0);
    expect(await operations.execute(request(document, NO_BUDGET), subgraphs)).toEqual({ data: { things: [{ name: 'one' }] } });
    expect(fetches).toBe(1);
  });

  test('a request waiting on a planning that another request’s deadline stopped plans it itself and is answered', async () => {
    const document = chainDocument();
    const budget = expiring();
    const first = operations.execute(request(document, budget), subgraphs);
    void executeStep(budget, () => first);
    const second = operations.execute(request(document, NO_BUDGET), subgraphs);
    await expect(first).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(await second).toEqual({ data: { things: [{ name: 'one' }] } });
  });
});
