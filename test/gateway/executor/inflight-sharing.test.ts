import { GraphQLError } from 'graphql';
import { InflightSharing } from '../../../gateway/executor/inflight-sharing.js';
import type { SubgraphClient } from '../../../gateway/executor/subgraph-client.js';
import type { SubgraphResponse } from '../../../pipeline/pipeline.js';
import type { Identity } from '../../../kernel/identity/identity.js';
import type { RequestContext } from '../../../kernel/graphql/request-context.js';
import { NO_BUDGET } from '../../../kernel/request-budget.js';

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

  test('identical queries of one caller share one execution; each gets its own copy', async () => {
    const s = subgraph();
    const answers = [s.shared.fetch(...fetch(QUERY, caller('a'))), s.shared.fetch(...fetch(QUERY, caller('b'))), s.shared.fetch(...fetch(QUERY, caller('c')))];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    const [a, b, c] = await Promise.all(answers);
    expect(s.executions).toEqual(['a']);
    expect(a).toEqual({ data: { modelVersions: [{ model: 'm1' }] } });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(b).not.toBe(a);
    expect((b as { data: { modelVersions: object[] } }).data.modelVersions[0]).not.toBe((c as { data: { modelVersions: object[] } }).data.modelVersions[0]);
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
