import { type Fetcher, inflightDeduplicating } from '../../gateway/inflight-fetch.js';

/** gateway/inflight-fetch.ts: identical subgraph queries in flight share one HTTP request. */
describe('in-flight deduplication of subgraph queries', () => {
  /** A fetcher that counts calls and answers when `release()` is called. */
  function upstream() {
    const calls: Array<{ url: string; body: string | undefined; headers: Record<string, string> }> = [];
    let release: (() => void) | undefined;
    let gate = new Promise<void>((resolve) => (release = resolve));
    const fetcher: Fetcher = async (url, init) => {
      calls.push({ url, body: init.body, headers: init.headers ?? {} });
      await gate;
      return new Response(JSON.stringify({ data: { n: calls.length } }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    return {
      fetcher,
      calls,
      release: () => {
        release!();
        gate = new Promise<void>((resolve) => (release = resolve));
      },
    };
  }
  const query = (text: string, variables: unknown = {}) => JSON.stringify({ query: text, variables, operationName: 'Op' });
  const init = (body: string, headers: Record<string, string> = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  test('identical queries in flight share one request; each caller gets its own answer to parse', async () => {
    const up = upstream();
    const fetch = inflightDeduplicating(up.fetcher);
    const body = query('query Op { models { model } }');
    const answers = [fetch('http://s/graphql', init(body, { 'x-request-id': 'a' })), fetch('http://s/graphql', init(body, { 'x-request-id': 'b' }))];
    up.release();
    const [first, second] = await Promise.all(answers);
    expect(up.calls).toHaveLength(1);
    const [a, b] = [await first!.json(), await second!.json()];
    expect(a).toEqual({ data: { n: 1 } });
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    expect(second!.headers.get('content-type')).toBe('application/json');
  });

  test('different credentials, variables, URLs or a mutation never share', async () => {
    const up = upstream();
    const fetch = inflightDeduplicating(up.fetcher);
    const body = query('query Op { models { model } }');
    const answers = [
      fetch('http://s/graphql', init(body, { authorization: 'Bearer one' })),
      fetch('http://s/graphql', init(body, { authorization: 'Bearer two' })),
      fetch('http://s/graphql', init(query('query Op { models { model } }', { x: 1 }), { authorization: 'Bearer one' })),
      fetch('http://t/graphql', init(body, { authorization: 'Bearer one' })),
      fetch('http://s/graphql', init(query('mutation Op { refreshRegistry { modelsFound } }'))),
      fetch('http://s/graphql', init(query('mutation Op { refreshRegistry { modelsFound } }'))),
    ];
    up.release();
    await Promise.all(answers);
    expect(up.calls).toHaveLength(6);
  });

  test('only requests in flight are shared: a later identical query goes upstream again', async () => {
    const up = upstream();
    const fetch = inflightDeduplicating(up.fetcher);
    const body = query('query Op { models { model } }');
    const first = fetch('http://s/graphql', init(body));
    up.release();
    await (await first).text();
    const second = fetch('http://s/graphql', init(body));
    up.release();
    expect(await (await second).json()).toEqual({ data: { n: 2 } });
    expect(up.calls).toHaveLength(2);
  });

  test('a failure reaches every caller that shared the request, and is not kept', async () => {
    let calls = 0;
    const fetch = inflightDeduplicating(async () => {
      calls += 1;
      if (calls === 1) throw new Error('connection refused');
      return new Response('{"data":{}}', { status: 200 });
    });
    const body = query('query Op { models { model } }');
    const results = await Promise.allSettled([fetch('http://s/graphql', init(body)), fetch('http://s/graphql', init(body))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((await fetch('http://s/graphql', init(body))).status).toBe(200);
    expect(calls).toBe(2);
  });
});
