import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError } from '../../kernel/errors.js';
import { toGraphQLError } from '../../kernel/graphql/graphql-errors.js';
import { type TinyFederation, type TinySubgraph, startTinyFederation, remoteSubgraph } from './tiny-federation.js';

/**
 * Federation semantics through our gateway wiring (composition, query planning, in-process data
 * sources and their document cache, error masking at the endpoint), on a small shop: `products`
 * owns Product, `reviews` adds reviews and provides names, `shipping` requires the weight.
 */
interface Product {
  id: string;
  name: string;
  weight: number;
}

const PRODUCTS: Record<string, Product> = {
  lamp: { id: 'lamp', name: 'Lamp', weight: 2 },
  desk: { id: 'desk', name: 'Desk', weight: 20 },
};

/** A contract error, as our subgraphs' resolvers raise them. */
const contractError = (code: 'RECORD_NOT_FOUND' | 'STORE_ERROR', message: string) => toGraphQLError(new DomainError(code, message, { reason: message }));

const products: TinySubgraph = {
  name: 'products',
  typeDefs: `
    type Query { product(id: ID!): Product products: [Product!]! }
    type Product @key(fields: "id") { id: ID! name: String! @shareable weight: Int! secretNote: String }`,
  resolvers: {
    Query: {
      product: (_: unknown, { id }: { id: string }) => PRODUCTS[id] ?? null,
      products: () => Object.values(PRODUCTS),
    },
    Product: {
      __resolveReference: ({ id }: { id: string }) => PRODUCTS[id] ?? null,
      // Not a contract error: its text must never reach a client.
      secretNote: () => {
        throw new Error('connect ECONNREFUSED 10.0.0.7:5432 at /srv/products/db.js:12');
      },
    },
  },
};

const reviews: TinySubgraph = {
  name: 'reviews',
  typeDefs: `
    type Query { topReview: Review }
    type Product @key(fields: "id") { id: ID! name: String! @external reviews: [Review!]! summary: String }
    type Review { stars: Int! product: Product! @provides(fields: "name") }`,
  resolvers: {
    Query: { topReview: () => ({ stars: 5, product: { id: 'lamp', name: 'Lamp' } }) },
    Product: {
      __resolveReference: ({ id }: { id: string }) => ({ id }),
      reviews: ({ id }: { id: string }) => {
        if (id === 'desk') throw contractError('STORE_ERROR', 'reviews of desk are unavailable');
        return [{ stars: 4, product: { id, name: PRODUCTS[id]!.name } }];
      },
      summary: ({ id }: { id: string }) => {
        if (id === 'desk') throw contractError('RECORD_NOT_FOUND', 'no summary for desk');
        return `${id}: 4 stars`;
      },
    },
  },
};

const shipping: TinySubgraph = {
  name: 'shipping',
  typeDefs: `
    type Product @key(fields: "id") { id: ID! weight: Int! @external shippingCost: Int @requires(fields: "weight") }`,
  resolvers: {
    Product: {
      // The gateway hands over the key and the required weight, fetched from products first.
      __resolveReference: (reference: { id: string; weight: number }) => reference,
      shippingCost: ({ weight }: { weight: number }) => weight * 3,
    },
  },
};

const contractErrorBody = (code: string, message: string, path: Array<string | number>) => ({ message, path, extensions: { code, details: { reason: message } } });
const INTERNAL = { message: 'internal error', extensions: { code: 'INTERNAL_ERROR' } };

describe('a tiny supergraph behind our gateway', () => {
  let shop: TinyFederation;
  beforeAll(async () => {
    shop = await startTinyFederation([products, reviews, shipping]);
  });
  afterAll(() => shop?.stop());

  const cases: Array<{ name: string; query: string; expected: unknown }> = [
    {
      name: 'entity resolution: one product, fields from three subgraphs',
      query: '{ product(id: "lamp") { name reviews { stars } summary shippingCost } }',
      expected: { data: { product: { name: 'Lamp', reviews: [{ stars: 4 }], summary: 'lamp: 4 stars', shippingCost: 6 } } },
    },
    {
      name: 'entity resolution over a list keeps the order',
      query: '{ products { id shippingCost } }',
      expected: {
        data: {
          products: [
            { id: 'lamp', shippingCost: 6 },
            { id: 'desk', shippingCost: 60 },
          ],
        },
      },
    },
    {
      name: '@requires: the weight is fetched from products, though the client did not ask for it',
      query: '{ product(id: "desk") { shippingCost } }',
      expected: { data: { product: { shippingCost: 60 } } },
    },
    {
      name: 'aliases on the key and the required field (issue 35): each fetch asks for them under their own names',
      query: '{ products { weight: id id: name name: weight shippingCost summary } }',
      expected: {
        data: {
          products: [
            { weight: 'lamp', id: 'Lamp', name: 2, shippingCost: 6, summary: 'lamp: 4 stars' },
            { weight: 'desk', id: 'Desk', name: 20, shippingCost: 60, summary: null },
          ],
        },
        errors: [contractErrorBody('RECORD_NOT_FOUND', 'no summary for desk', ['products', 1, 'summary'])],
      },
    },
    {
      name: 'the key and the required field swapped on one entity',
      query: '{ product(id: "lamp") { id: weight weight: id shippingCost } }',
      expected: { data: { product: { id: 2, weight: 'lamp', shippingCost: 6 } } },
    },
    {
      name: '@provides: the name comes with the review',
      query: '{ topReview { stars product { name } } }',
      expected: { data: { topReview: { stars: 5, product: { name: 'Lamp' } } } },
    },
    {
      name: 'partial result: an error from reviews, data from products and shipping',
      query: '{ product(id: "desk") { name summary shippingCost } }',
      expected: {
        data: { product: { name: 'Desk', summary: null, shippingCost: 60 } },
        errors: [contractErrorBody('RECORD_NOT_FOUND', 'no summary for desk', ['product', 'summary'])],
      },
    },
    {
      name: 'partial result per list item',
      query: '{ products { id summary } }',
      expected: {
        data: {
          products: [
            { id: 'lamp', summary: 'lamp: 4 stars' },
            { id: 'desk', summary: null },
          ],
        },
        errors: [contractErrorBody('RECORD_NOT_FOUND', 'no summary for desk', ['products', 1, 'summary'])],
      },
    },
    {
      name: 'an error in a non-null field of another subgraph nulls its nearest nullable parent',
      query: '{ product(id: "desk") { name reviews { stars } } }',
      expected: { data: { product: null }, errors: [contractErrorBody('STORE_ERROR', 'reviews of desk are unavailable', ['product', 'reviews'])] },
    },
    {
      name: 'an error that is not a contract error is masked: code INTERNAL_ERROR, no text',
      query: '{ product(id: "lamp") { name secretNote } }',
      expected: { data: { product: { name: 'Lamp', secretNote: null } }, errors: [{ ...INTERNAL, path: ['product', 'secretNote'] }] },
    },
  ];

  test.each(cases)('$name', async ({ query, expected }) => {
    const answer = await shop.query(query);
    expect(answer.json).toEqual(expected);
  });

  test('@provides: products is not called at all', async () => {
    const before = { ...shop.calls };
    await shop.query('{ topReview { product { name } } }');
    expect(shop.calls.products).toBe(before.products);
    expect(shop.calls.reviews).toBe(before.reviews! + 1);
  });

  test('the entities of a list are fetched in one batch per subgraph', async () => {
    const before = { ...shop.calls };
    await shop.query('{ products { summary shippingCost } }');
    expect([shop.calls.products! - before.products!, shop.calls.reviews! - before.reviews!, shop.calls.shipping! - before.shipping!]).toEqual([1, 1, 1]);
  });

  test('the same operation again gives the same answer (cached documents in gateway and subgraphs)', async () => {
    const query = '{ products { id name summary shippingCost } }';
    const first = await shop.query(query);
    expect((await shop.query(query)).json).toEqual(first.json);
  });
});

describe('a subgraph that fails at the HTTP level', () => {
  const query = '{ product(id: "lamp") { name shippingCost } }';
  // A failed fetch carries no path: the gateway reports the fetch, not a field.
  /** A subgraph not reached is SUBGRAPH_UNAVAILABLE (503), one answering something that is not GraphQL SUBGRAPH_ERROR (502). */
  const failedWith = (code: string, message: string) => ({ data: { product: { name: 'Lamp', shippingCost: null } }, errors: [{ message, extensions: { code, details: null } }] });
  let upstream: { server: Server; url: string };
  beforeAll(async () => {
    upstream = await listen(
      createServer((_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<pre>Error: pool exhausted\n    at query (/srv/shipping/db.js:40:11)</pre>');
      }),
    );
  });
  afterAll(() => new Promise((resolve) => upstream?.server.close(resolve)));

  /** The shop's answer to `query` with shipping reached over HTTP at `url`. */
  async function answerWithShippingAt(url: string) {
    const shop = await startTinyFederation([products, reviews, shipping], { shipping: remoteSubgraph(url) });
    try {
      return await shop.query(query);
    } finally {
      await shop.stop();
    }
  }

  test('down (connection refused): the other subgraphs answer; the error has a code, no address or stack', async () => {
    const answer = await answerWithShippingAt(`http://127.0.0.1:${await closedPort()}/graphql`);
    expect(answer.json).toEqual(failedWith('SUBGRAPH_UNAVAILABLE', 'the remote subgraph could not be reached'));
    expect(answer.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/i);
  });

  test('answering 502 with an HTML stack trace: the upstream body is not shown', async () => {
    const answer = await answerWithShippingAt(`${upstream.url}/graphql`);
    expect(answer.json).toEqual(failedWith('SUBGRAPH_ERROR', 'the remote subgraph did not answer with a GraphQL response'));
    expect(answer.text).not.toMatch(/pool exhausted|\/srv\/|502/);
  });
});

async function listen(server: Server): Promise<{ server: Server; url: string }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const { server } = await listen(createServer());
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
