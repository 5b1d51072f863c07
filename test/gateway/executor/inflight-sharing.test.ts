import { GraphQLError } from 'graphql';
import { InflightSharing } from '../../../gateway/executor/inflight-sharing.js';
import type { SubgraphClient } from '../../../gateway/executor/subgraph-client.js';
import type { SubgraphResponse } from '../../../pipeline/pipeline.js';
import type { Identity } from '../../../kernel/identity/identity.js';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import { NO_BUDGET } from '../../../kernel/request-budget.js';
import { deepMerge } from '../../../gateway/executor/fetching.js';
import { type TinyFederation, startTinyFederation } from '../../federation/tiny-federation.js';
import { WAREHOUSE_ANSWER, WAREHOUSE_QUERY, catalogSubgraph, itemsOf, stockSubgraph } from './warehouse.js';

/**
 * gateway/executor/inflight-sharing.ts: identical subgraph queries in flight share one fetch, in
 * this process or over HTTP (the client below stands for either).
 */
describe('in-flight sharing of subgraph fetches', () => {
  /** A subgraph that counts fetches and answers when `release()` is called (or fails with `failure`). */
  function subgraph(answer: (n: number) => object = (n) => ({ data: { modelVersions: [{ model: `m${n}` }] } }), failure?: (n: number) => Error | null) {
    const executions: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const client: SubgraphClient = {
      async fetch(_request, context) {
        executions.push(context.requestId);
        await gate;
        const error = failure?.(executions.length);
        if (error) throw error;
        return answer(executions.length) as SubgraphResponse;
      },
    };
    return { shared: new InflightSharing(client), executions, release };
  }

  function caller(requestId: string, identity: Partial<Identity> | null = { subject: 'alice' }, credentials: Record<string, string> = {}): RequestContext {
    const known = identity === null ? null : { subject: 'alice', roles: [], scopes: [], tenant: null, ...identity };
    return {
      requestId,
      trace: { requestId, failures: [], budget: NO_BUDGET },
      budget: NO_BUDGET,
      credentials,
      identity: async () => {
        if (known === null) throw new Error('UNAUTHORIZED');
        return known;
      },
      authorize: async () => known!,
      forwardedCredentials: async () => credentials,
    };
  }

  const fetch = (query: string, context: RequestContext, variables: Record<string, unknown> = {}) => [{ query, variables, operationName: 'Op' }, context] as const;
  const QUERY = 'query Op { modelVersions { model } }';

  test('identical queries of one caller share one execution and one frozen answer, which a caller copies where it merges', async () => {
    const s = subgraph();
    const answers = [s.shared.fetch(...fetch(QUERY, caller('a'))), s.shared.fetch(...fetch(QUERY, caller('b'))), s.shared.fetch(...fetch(QUERY, caller('c')))];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    const [a, b, c] = await Promise.all(answers);
    expect(s.executions).toEqual(['a']);
    expect(a).toEqual({ data: { modelVersions: [{ model: 'm1' }] } });
    expect(b).toBe(a);
    expect(c).toBe(a);
    const modelVersion = (a!.data as { modelVersions: object[] }).modelVersions[0]!;
    expect([a, a!.data, modelVersion].every((value) => Object.isFrozen(value))).toBe(true);
    // As the executor gathers a fetch's data and merges a later fetch's into it (fetching.ts).
    const gathered: Record<string, unknown> = {};
    deepMerge(gathered, a!.data as Record<string, unknown>);
    deepMerge(gathered, { modelVersions: [{ label: 'M1' }] });
    expect(gathered).toEqual({ modelVersions: [{ model: 'm1', label: 'M1' }] });
    expect(b).toEqual({ data: { modelVersions: [{ model: 'm1' }] } });
  });

  test('a caller alone gets the answer as fetched', async () => {
    const s = subgraph();
    const answer = s.shared.fetch(...fetch(QUERY, caller('a')));
    s.release();
    expect(Object.isFrozen(await answer)).toBe(false);
  });

  test('another identity, other credentials, other variables, a mutation or an unauthenticated caller never share', async () => {
    const s = subgraph();
    const answers = [
      s.shared.fetch(...fetch(QUERY, caller('alice'))),
      s.shared.fetch(...fetch(QUERY, caller('bob', { subject: 'bob' }))),
      s.shared.fetch(...fetch(QUERY, caller('tenant', { tenant: 'acme' }))),
      s.shared.fetch(...fetch(QUERY, caller('token', {}, { authorization: 'Bearer other' }))),
      s.shared.fetch(...fetch(QUERY, caller('variables'), { x: 1 })),
      s.shared.fetch(...fetch('mutation Op { refreshRegistry { modelsFound } }', caller('mutation-1'))),
      s.shared.fetch(...fetch('mutation Op { refreshRegistry { modelsFound } }', caller('mutation-2'))),
      s.shared.fetch(...fetch(QUERY, caller('anonymous-1', null))),
      s.shared.fetch(...fetch(QUERY, caller('anonymous-2', null))),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    await Promise.all(answers);
    expect(s.executions).toHaveLength(9);
  });

  test('errors are shared as their formatted form; only executions in flight are shared', async () => {
    const refused = {
      message: 'filter.conditions[0].path is required with PAYLOAD',
      path: ['records'],
      extensions: { code: 'BAD_REQUEST', details: { at: 'filter.conditions[0].path', reason: 'required' } },
    };
    const s = subgraph(() => ({ data: null, errors: [new GraphQLError(refused.message, { path: refused.path, extensions: refused.extensions })] }));
    const query = 'query Op($f: RecordFilter) { records(filter: $f) { totalCount } }';
    const filter = { f: { conditions: [{ field: 'PAYLOAD', operator: 'EXISTS', value: { boolean: true } }] } };
    const answers = [s.shared.fetch(...fetch(query, caller('a'), filter)), s.shared.fetch(...fetch(query, caller('b'), filter))];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    const [, second] = await Promise.all(answers);
    expect(second).toEqual({ data: null, errors: [refused] });
    await s.shared.fetch(...fetch(query, caller('later'), filter));
    expect(s.executions).toEqual(['a', 'later']);
  });

  test('a failure reaches every caller that shared the fetch, and is not kept', async () => {
    const s = subgraph(undefined, (n) => (n === 1 ? new Error('connection refused') : null));
    const answers = [s.shared.fetch(...fetch(QUERY, caller('a'))), s.shared.fetch(...fetch(QUERY, caller('b')))];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    expect((await Promise.allSettled(answers)).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(s.shared.fetch(...fetch(QUERY, caller('later')))).resolves.toEqual({ data: { modelVersions: [{ model: 'm2' }] } });
  });
});

/**
 * Through our gateway: concurrent identical requests share each fetch, and every later fetch merges
 * into the shared answers (catalog's shelves get stock's items, stock's items get catalog's
 * labels), each request copying what it writes, so that each answer is exactly what one request
 * alone gets.
 */
describe.each([{ reference: false }, { reference: true }])('answers shared in flight and merged into (@apollo/gateway’s executor: $reference)', ({ reference }) => {
  const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 50));
  /** The first fetch waits long enough for every request sent with it to join it. */
  let gate: Promise<void> = Promise.resolve();
  const catalog = catalogSubgraph({ shelves: (shelves) => gate.then(() => shelves), labels: later });
  const stock = stockSubgraph((shelf) => later(itemsOf(shelf)));
  let federation: TinyFederation | undefined;
  afterEach(async () => {
    await federation?.stop();
    federation = undefined;
  });

  it('answers every request exactly from the answers they shared', async () => {
    federation = await startTinyFederation([catalog, stock], {}, { stockExecutorOnly: reference });
    expect((await federation.query(WAREHOUSE_QUERY)).json).toEqual({ data: WAREHOUSE_ANSWER });
    const before = { ...federation.calls };
    gate = new Promise((resolve) => setTimeout(resolve, 500));
    const answers = await Promise.all(Array.from({ length: 3 }, () => federation!.query(WAREHOUSE_QUERY)));
    for (const { status, json } of answers) expect({ status, json }).toEqual({ status: 200, json: { data: WAREHOUSE_ANSWER } });
    // One fetch of stock's items for the three: every request merged catalog's labels into that one answer.
    expect(federation.calls.stock! - before.stock!).toBe(1);
  });
});
