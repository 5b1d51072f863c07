import { DomainError } from '../../kernel/errors.js';
import { toGraphQLError } from '../../kernel/graphql/graphql-errors.js';
import { CapturingProxy } from '../support/capturing-proxy.js';
import { PLANNERS } from '../support/planners.js';
import { type TinyFederation, type TinySubgraph, remoteSubgraph, serveSubgraph, startTinyFederation } from './tiny-federation.js';

/**
 * Issue 39, item 3: what a subgraph receives from our gateway, on both planners. A page of entities
 * that point at the same entity (the records of a page and their model version) asks the owning
 * subgraph for it once, not once per entity: each representation is sent once, its answer merged
 * into every entity it stands for, and an error of it relayed at each (gateway/executor/fetching.ts,
 * EntityRepresentations). `reviews` is served over HTTP behind a capturing proxy
 * (test/support/capturing-proxy.ts) that records each request the gateway sends it.
 */
const BOOKS: Record<string, { id: string; title: string; pages: number }> = {
  b1: { id: 'b1', title: 'Dune', pages: 412 },
  b2: { id: 'b2', title: 'Emma', pages: 474 },
  bad: { id: 'bad', title: 'Broken', pages: 1 },
};

const catalog: TinySubgraph = {
  name: 'catalog',
  typeDefs: `
    type Query { books(ids: [ID!]!): [Book]! shelves: [Shelf!]! }
    type Shelf { label: String! book: Book! }
    type Book @key(fields: "id") { id: ID! title: String! pages: Int! }`,
  resolvers: {
    Query: {
      books: (_: unknown, { ids }: { ids: string[] }) => ids.map((id) => BOOKS[id] ?? null),
      // Three shelves showing two books: the same entity under several parents, as records under their model version.
      shelves: () => ['b1', 'b2', 'b1'].map((id, i) => ({ label: `shelf ${i + 1}`, book: BOOKS[id] })),
    },
    Book: { __resolveReference: ({ id }: { id: string }) => BOOKS[id] ?? null },
  },
};

const reviews: TinySubgraph = {
  name: 'reviews',
  typeDefs: `
    type Book @key(fields: "id") { id: ID! pages: Int! @external stars: Float! length: String @requires(fields: "pages") }`,
  resolvers: {
    Book: {
      __resolveReference: (reference: { id: string; pages?: number }) => reference,
      stars: ({ id }: { id: string }) => {
        if (id === 'bad') throw toGraphQLError(new DomainError('STORE_ERROR', 'reviews of bad are unavailable', { reason: 'test' }));
        return id === 'b1' ? 4.5 : 3;
      },
      length: ({ pages }: { pages: number }) => (pages > 450 ? 'long' : 'short'),
    },
  },
};

describe.each(PLANNERS)('entity fetches on the %s planner: what the subgraph receives', (planner) => {
  let library: TinyFederation;
  let proxy: CapturingProxy;
  beforeAll(async () => {
    proxy = await CapturingProxy.start(await serveSubgraph(reviews));
    library = await startTinyFederation([catalog, reviews], { reviews: remoteSubgraph(proxy.url) }, { planner });
  });
  beforeEach(() => proxy.clear());

  /** The representations of each request `reviews` received. */
  const representationsSent = () => proxy.fetches.map((fetch) => Object.values(fetch.variables).filter(Array.isArray));

  test('the same entity several times in a list: sent once, its fields in each', async () => {
    const answer = await library.query('{ books(ids: ["b1", "b2", "b1", "nope", "b1"]) { id stars } }');
    expect(answer.json).toEqual({ data: { books: [{ id: 'b1', stars: 4.5 }, { id: 'b2', stars: 3 }, { id: 'b1', stars: 4.5 }, null, { id: 'b1', stars: 4.5 }] } });
    expect(representationsSent()).toEqual([
      [
        [
          { __typename: 'Book', id: 'b1' },
          { __typename: 'Book', id: 'b2' },
        ],
      ],
    ]);
  });

  test('the same entity under several parents, with @requires: one representation per entity, each parent answered', async () => {
    const answer = await library.query('{ shelves { label book { title stars length } } }');
    expect(answer.json).toEqual({
      data: {
        shelves: [
          { label: 'shelf 1', book: { title: 'Dune', stars: 4.5, length: 'short' } },
          { label: 'shelf 2', book: { title: 'Emma', stars: 3, length: 'long' } },
          { label: 'shelf 3', book: { title: 'Dune', stars: 4.5, length: 'short' } },
        ],
      },
    });
    // Every list sent (one request, or a batch of one list per entity fetch) holds each book once.
    const lists = representationsSent().flat();
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) expect(list.map((r: { id: string }) => r.id)).toEqual(['b1', 'b2']);
  });

  test("a failing entity twice: sent once, the subgraph's error at each entity", async () => {
    const answer = await library.query('{ books(ids: ["bad", "b1", "bad"]) { id stars } }');
    const error = (index: number) => ({
      message: 'reviews of bad are unavailable',
      path: ['books', index, 'stars'],
      extensions: { code: 'STORE_ERROR', details: { reason: 'test' } },
    });
    expect(answer.json).toEqual({ errors: [error(0), error(2)], data: { books: [null, { id: 'b1', stars: 4.5 }, null] } });
    expect(representationsSent()).toEqual([
      [
        [
          { __typename: 'Book', id: 'bad' },
          { __typename: 'Book', id: 'b1' },
        ],
      ],
    ]);
  });

  test('what the capturing proxy recorded is what went over the wire', async () => {
    await library.query('{ books(ids: ["b2"]) { stars } }');
    const [fetch] = proxy.fetches;
    expect(fetch!.query).toMatch(/_entities\(representations:/);
    expect(fetch!.bytesSent).toBe(Number(fetch!.headers['content-length']));
    expect(fetch!.answer).toEqual({ data: { _entities: [{ stars: 3 }] } });
    expect(fetch!.bytesReceived).toBe(JSON.stringify(fetch!.answer).length);
  });
});
