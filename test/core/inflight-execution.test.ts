import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLError } from 'graphql';
import { InflightSharingDataSource } from '../../gateway/inflight-execution.js';
import type { Identity } from '../../kernel/identity/identity.js';
import type { RequestContext } from '../../kernel/graphql/request-context.js';

/** gateway/inflight-execution.ts: identical in-process subgraph queries in flight share one execution. */
describe('in-flight sharing of in-process subgraph executions', () => {
  /** A subgraph that counts executions and answers when `release()` is called. */
  function subgraph(answer: (n: number) => object = (n) => ({ data: { models: [{ model: `m${n}` }] } })) {
    const executions: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const source: GraphQLDataSource<Record<string, unknown>> = {
      async process({ context }) {
        executions.push((context as unknown as RequestContext).requestId);
        await gate;
        return answer(executions.length) as never;
      },
    };
    return { shared: new InflightSharingDataSource(source), executions, release };
  }

  function caller(requestId: string, identity: Partial<Identity> | null = { subject: 'alice' }, credentials: Record<string, string> = {}): RequestContext {
    const known = identity === null ? null : { subject: 'alice', roles: [], scopes: [], tenant: null, ...identity };
    return {
      requestId,
      credentials,
      identity: async () => {
        if (known === null) throw new Error('UNAUTHORIZED');
        return known;
      },
      authorize: async () => known!,
    };
  }

  const fetch = (query: string, context: RequestContext, variables: Record<string, unknown> = {}) =>
    ({ kind: 'incoming operation', request: { query, variables, operationName: 'Op' }, context } as unknown as GraphQLDataSourceProcessOptions<Record<string, unknown>>);
  const QUERY = 'query Op { models { model } }';

  test('identical queries of one caller share one execution; each gets its own copy', async () => {
    const s = subgraph();
    const answers = [s.shared.process(fetch(QUERY, caller('a'))), s.shared.process(fetch(QUERY, caller('b'))), s.shared.process(fetch(QUERY, caller('c')))];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    const [a, b, c] = await Promise.all(answers);
    expect(s.executions).toEqual(['a']);
    expect(a).toEqual({ data: { models: [{ model: 'm1' }] } });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(b).not.toBe(a);
    expect((b as { data: { models: object[] } }).data.models[0]).not.toBe((c as { data: { models: object[] } }).data.models[0]);
  });

  test('another identity, other credentials, other variables, a mutation or an unauthenticated caller never share', async () => {
    const s = subgraph();
    const answers = [
      s.shared.process(fetch(QUERY, caller('alice'))),
      s.shared.process(fetch(QUERY, caller('bob', { subject: 'bob' }))),
      s.shared.process(fetch(QUERY, caller('tenant', { tenant: 'acme' }))),
      s.shared.process(fetch(QUERY, caller('token', {}, { authorization: 'Bearer other' }))),
      s.shared.process(fetch(QUERY, caller('variables'), { x: 1 })),
      s.shared.process(fetch('mutation Op { refreshRegistry { modelsFound } }', caller('mutation-1'))),
      s.shared.process(fetch('mutation Op { refreshRegistry { modelsFound } }', caller('mutation-2'))),
      s.shared.process(fetch(QUERY, caller('anonymous-1', null))),
      s.shared.process(fetch(QUERY, caller('anonymous-2', null))),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    await Promise.all(answers);
    expect(s.executions).toHaveLength(9);
  });

  test('errors are shared as their formatted form; only executions in flight are shared', async () => {
    const s = subgraph(() => ({ data: null, errors: [new GraphQLError('no such model', { path: ['models'], extensions: { code: 'MODEL_NOT_FOUND' } })] }));
    const answers = [s.shared.process(fetch(QUERY, caller('a'))), s.shared.process(fetch(QUERY, caller('b')))];
    await new Promise((resolve) => setImmediate(resolve));
    s.release();
    const [, second] = await Promise.all(answers);
    expect(second).toEqual({ data: null, errors: [{ message: 'no such model', path: ['models'], extensions: { code: 'MODEL_NOT_FOUND' } }] });
    await s.shared.process(fetch(QUERY, caller('later')));
    expect(s.executions).toEqual(['a', 'later']);
  });
});
