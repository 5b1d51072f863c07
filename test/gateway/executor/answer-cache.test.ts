import { setTimeout as sleep } from 'node:timers/promises';
import { AnswerCache } from '../../../gateway/executor/answer-cache.js';
import type { SubgraphClient } from '../../../gateway/executor/subgraph-client.js';
import { type TinyFederation, type TinySubgraph, startTinyFederation } from '../../federation/tiny-federation.js';
import { WAREHOUSE_ANSWER, WAREHOUSE_QUERY, catalogSubgraph, itemsOf, stockSubgraph } from './warehouse.js';

/**
 * Reused subgraph answers (gateway/executor/answer-cache.ts) through our gateway, on the warehouse
 * (./warehouse.ts): `stock`'s entity answers are the reused ones, so that a fetch of `catalog`
 * merges labels into the items of a reused answer, which every request shares.
 */
const catalog = catalogSubgraph();

interface StockState {
  failNext: boolean;
  /** Shelves whose items the subgraph itself counted. */
  counted: number;
}

function stock(state: StockState): TinySubgraph {
  return stockSubgraph((shelf) => {
    state.counted += 1;
    if (state.failNext) {
      state.failNext = false;
      throw new Error('the stock count is being taken');
    }
    return itemsOf(shelf);
  });
}

const reusing =
  (ttlMs: number, maxBytes = 1024 * 1024) =>
  (client: SubgraphClient) =>
    new AnswerCache(client, { rootFields: new Set(['_entities']), ttlMs }, maxBytes);

describe.each([{ reference: false }, { reference: true }])('reused subgraph answers (@apollo/gateway’s executor: $reference)', ({ reference }) => {
  let federation: TinyFederation | undefined;
  afterEach(async () => {
    await federation?.stop();
    federation = undefined;
  });

  async function start(state: StockState, reuse: (client: SubgraphClient) => SubgraphClient): Promise<TinyFederation> {
    federation = await startTinyFederation([catalog, stock(state)], { stock: reuse }, { stockExecutorOnly: reference });
    return federation;
  }

  it('answers from the reused answer exactly as from the subgraph, however often later fetches merge into it', async () => {
    const state = { failNext: false, counted: 0 };
    const shop = await start(state, reusing(60_000));
    for (let i = 0; i < 3; i++) {
      const { status, json } = await shop.query(WAREHOUSE_QUERY);
      expect(status).toBe(200);
      expect(json).toEqual({ data: WAREHOUSE_ANSWER });
    }
    // `stock` counted the two shelves once: the other requests were answered from its reused answer.
    expect(state.counted).toBe(2);
    expect(shop.calls.catalog).toBe(6);
  });

  it('does not keep an answer with errors: the next request asks the subgraph again', async () => {
    const state = { failNext: true, counted: 0 };
    const shop = await start(state, reusing(60_000));
    const failed = await shop.query(WAREHOUSE_QUERY);
    expect(failed.json.errors?.length).toBeGreaterThan(0);
    const { json } = await shop.query(WAREHOUSE_QUERY);
    expect(json).toEqual({ data: WAREHOUSE_ANSWER });
    expect(state.counted).toBe(4);
  });

  it('asks the subgraph again once an answer is older than its time to live', async () => {
    const state = { failNext: false, counted: 0 };
    const shop = await start(state, reusing(50));
    await shop.query(WAREHOUSE_QUERY);
    await sleep(100);
    const { json } = await shop.query(WAREHOUSE_QUERY);
    expect(json).toEqual({ data: WAREHOUSE_ANSWER });
    expect(state.counted).toBe(4);
  });

  it('keeps no answer larger than its bound', async () => {
    const state = { failNext: false, counted: 0 };
    const shop = await start(state, reusing(60_000, 64));
    for (let i = 0; i < 2; i++) expect((await shop.query(WAREHOUSE_QUERY)).json).toEqual({ data: WAREHOUSE_ANSWER });
    expect(state.counted).toBe(4);
  });
});
