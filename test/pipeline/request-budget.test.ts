import type { IncomingMessage } from 'node:http';
import { type OperationDefinitionNode, buildSchema, parse } from 'graphql';
import { NO_BUDGET } from '../../kernel/request-budget.js';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import type { Exchange, SubgraphFetch } from '../../pipeline/pipeline.js';
import { followGatewayDeadline, requestBudgetPlugin } from '../../pipeline/request-budget.js';
import { upstreamTimeout } from '../../pipeline/upstream-timeout.js';

/**
 * Operations with a deadline of their own (the admin refresh, REGISTRY_REFRESH_TIMEOUT_SECS): the
 * budget plugin holds such a request to that bound instead of REQUEST_MAX_DURATION_MS, at the edge,
 * on the hop (SUBGRAPH_TIMEOUT_MS) and at a subgraph port. The refresh through the real system:
 * test/reliability/registry-refresh-responsive.test.ts.
 */
const LIMITS = { maxResponseBytes: 0, maxRecordsRead: 0, maxDurationMs: 20_000 };
const OWN = { refreshRegistry: 50_000 };
const schema = buildSchema('type Query { a: Int } type Mutation { refreshRegistry: Int createRecord: Int }');

function exchangeWith(door: string, headers: Record<string, string> = {}): { exchange: Exchange; request: IncomingMessage } {
  const exchange = { door, kind: door.startsWith('subgraph:') ? 'subgraph' : door === 'graphql' ? 'graphql' : 'facade', budget: NO_BUDGET, failures: [] as unknown[] } as Exchange;
  const request = { headers } as IncomingMessage;
  requestBudgetPlugin(LIMITS, OWN).onRequest!(exchange, request);
  return { exchange, request };
}

function planned(exchange: Exchange, text: string): void {
  const operation = parse(text).definitions[0] as OperationDefinitionNode;
  requestBudgetPlugin(LIMITS, OWN).onOperation!({ exchange, operation, fragments: new Map(), schema, variables: {} });
}

const msLeft = (exchange: Exchange) => Number(/ms=(\d+)/.exec(exchange.budget.header()!)![1]);

test.each([
  ['mutation { refreshRegistry }', true],
  ['mutation { __typename refreshRegistry }', true],
  ['mutation { refreshRegistry createRecord }', false],
  ['mutation { ... on Mutation { refreshRegistry } }', false],
  ['query { a }', false],
])('%s: held to its own deadline: %s', (text, extended) => {
  const { exchange } = exchangeWith('core');
  planned(exchange, text);
  expect(exchange.budget.extendedMsLeft() !== null).toBe(extended);
  expect(msLeft(exchange)).toBeGreaterThan(extended ? 40_000 : 0);
  expect(msLeft(exchange)).toBeLessThanOrEqual(extended ? 50_000 : 20_000);
  exchange.budget.end();
});

test("a subgraph port follows the gateway's deadline past its own; a direct caller's header only lowers it, its own deadline included", () => {
  const fromGateway = exchangeWith('subgraph:models', { 'x-request-budget': 'ms=45000, records=0' });
  expect(msLeft(fromGateway.exchange)).toBeLessThanOrEqual(20_000);
  followGatewayDeadline(fromGateway.exchange.budget, fromGateway.request);
  expect(msLeft(fromGateway.exchange)).toBeGreaterThan(40_000);
  const direct = exchangeWith('subgraph:models', { 'x-request-budget': 'ms=1000, records=0' });
  planned(direct.exchange, 'mutation { refreshRegistry }');
  expect(msLeft(direct.exchange)).toBeLessThanOrEqual(1000);
});

describe('SUBGRAPH_TIMEOUT_MS and an operation with its own deadline', () => {
  /** A fetch through the upstream timeout whose answer takes `answerMs`: whether its signal was aborted by then. */
  async function fetchTaking(exchange: Exchange, answerMs: number): Promise<string> {
    const fetch = { subgraph: 'models', request: { query: '', variables: {} }, context: { budget: exchange.budget, trace: exchange } as unknown as RequestContext, headers: {} } as SubgraphFetch;
    const send = () => new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(fetch.signal!.aborted ? 'aborted' : 'answered late')), answerMs));
    return upstreamTimeout(20).onSubgraphFetch!(fetch, send).then(
      () => 'answered',
      (error: Error) => (error as { extensions?: { code?: string } }).extensions?.code ?? error.message,
    );
  }

  test('an ordinary fetch is cut at SUBGRAPH_TIMEOUT_MS', async () => {
    const { exchange } = exchangeWith('graphql');
    planned(exchange, 'mutation { createRecord }');
    expect(await fetchTaking(exchange, 200)).toBe('SUBGRAPH_TIMEOUT');
  });

  test("the refresh's fetch has until its own deadline", async () => {
    const { exchange } = exchangeWith('graphql');
    planned(exchange, 'mutation { refreshRegistry }');
    expect(await fetchTaking(exchange, 200)).toBe('answered late');
    exchange.budget.end();
  });
});
