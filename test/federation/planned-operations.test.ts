import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { PlannedOperations } from '../../gateway/executor/apollo-planner/planned-operations.js';
import { HivePlannedOperations } from '../../gateway/executor/hive/hive-planned-operations.js';
import { DomainError } from '../../kernel/errors.js';
import { toGraphQLError } from '../../kernel/graphql/graphql-errors.js';
import { GraphQLError } from 'graphql';
import { PLANNERS } from '../support/planners.js';
import type { PlannerMode } from '../../gateway/executor/planner.js';
import { type TinyFederation, type TinySubgraph, startTinyFederation, remoteSubgraph, serveSubgraph } from './tiny-federation.js';

/**
 * Planned operations (gateway/planned-operations.ts): the first request of an operation goes
 * through @apollo/gateway's executor, later ones run the plan it made with our plan execution and
 * result shaping. Every answer must be the same text either way: data, nulls bubbling up, errors
 * and their paths, `__typename`, fragments on interfaces and unions, aliases, `@skip`/`@include`,
 * entity fetches with `@requires`, a subgraph that is down; and the shapes of our graph: a cursor
 * connection whose `edges`/`nodes` are entities another subgraph completes, typed input objects, a
 * mutation payload type, a nullable lookup answering null.
 */
interface Book {
  id: string;
  title: string;
  pages: number;
}

const BOOKS: Record<string, Book> = {
  b1: { id: 'b1', title: 'Dune', pages: 412 },
  b2: { id: 'b2', title: 'Emma', pages: 474 },
  bad: { id: 'bad', title: 'Broken', pages: 1 },
  ghost: { id: 'ghost', title: 'Ghost', pages: 2 },
};
const FILMS: Record<string, { id: string; title: string; minutes: number | null }> = { f1: { id: 'f1', title: 'Alien', minutes: 117 } };
const mediaById = (id: string) =>
  BOOKS[id] ? { __typename: 'Book', ...BOOKS[id] } : FILMS[id] ? { __typename: 'Film', ...FILMS[id] } : id === 's1' ? { __typename: 'Secret', id: 's1', title: 'Hidden' } : null;

const REVIEWS: Record<string, string> = { 'review:1': 'Spice everywhere', 'review:2': 'Witty' };
const nodeById = (id: string) => (BOOKS[id] ? { __typename: 'Book', ...BOOKS[id] } : id.startsWith('review:') ? { __typename: 'Review', ref: id } : null);

const catalog: TinySubgraph = {
  name: 'catalog',
  typeDefs: `
    type Query {
      item(id: ID!): Media media(ids: [ID!]!): [Media]! featured: Featured shelf(ids: [ID!]!): Shelf! book(id: ID!): Book
      books(filter: BookFilter, first: Int, after: String): BookConnection!
      node(id: ID!): Node nodes(ids: [ID!]!): [Node]!
    }
    type Mutation { rename(id: ID!, title: String!): Media renameBook(input: RenameBookInput!): RenameBookPayload! }
    input BookFilter { minPages: Int ids: [ID!] }
    input RenameBookInput { id: ID! title: String! }
    type RenameBookPayload { book: Book renamed: Boolean! }
    type BookConnection { edges: [BookEdge!]! nodes: [Book!]! pageInfo: PageInfo! totalCount: Int! }
    type BookEdge { cursor: String! node: Book! }
    type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
    interface Media { id: ID! title: String! }
    type Book implements Media & Node @key(fields: "id") { id: ID! title: String! pages: Int! format: Format publisher: Publisher }
    type Publisher { name: String! }
    interface Node { id: ID! }
    type Review implements Node @key(fields: "ref", resolvable: false) { ref: ID! @federation__inaccessible id: ID! @external }
    type Film implements Media @key(fields: "id") { id: ID! title: String! minutes: Int trailer: String }
    type Secret implements Media @federation__inaccessible { id: ID! title: String! }
    enum Format { HARDCOVER PAPERBACK SECRET @federation__inaccessible }
    union Featured = Book | Film
    type Shelf { label: String! ranking: [Book!]! }`,
  resolvers: {
    Query: {
      item: (_: unknown, { id }: { id: string }) => mediaById(id),
      media: (_: unknown, { ids }: { ids: string[] }) => ids.map(mediaById),
      featured: () => mediaById('f1'),
      shelf: (_: unknown, { ids }: { ids: string[] }) => ({ label: 'Top', ranking: ids.map((id) => BOOKS[id]) }),
      book: (_: unknown, { id }: { id: string }) => BOOKS[id] ?? null,
      // Our graph's node(id:) (subgraphs/models/graphql/node-resolver.ts): its own objects in full, another subgraph's as stubs.
      node: (_: unknown, { id }: { id: string }) => nodeById(id),
      nodes: (_: unknown, { ids }: { ids: string[] }) => ids.map(nodeById),
      books: (_: unknown, { filter, first, after }: { filter?: { minPages?: number; ids?: string[] } | null; first?: number | null; after?: string | null }) => {
        const matching = (filter?.ids ?? Object.keys(BOOKS)).filter((id) => BOOKS[id] && BOOKS[id].pages >= (filter?.minPages ?? 0)).map((id) => BOOKS[id]!);
        const start = after ? matching.findIndex((book) => `cursor:${book.id}` === after) + 1 : 0;
        const page = matching.slice(start, start + (first ?? 10));
        const edges = page.map((book) => ({ cursor: `cursor:${book.id}`, node: book }));
        return {
          edges,
          nodes: page,
          pageInfo: { hasNextPage: start + page.length < matching.length, hasPreviousPage: start > 0, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
          totalCount: matching.length,
        };
      },
    },
    Mutation: {
      rename: (_: unknown, { id, title }: { id: string; title: string }) => ({ ...mediaById(id), title }),
      renameBook: (_: unknown, { input }: { input: { id: string; title: string } }) => ({
        book: BOOKS[input.id] ? { ...BOOKS[input.id], title: input.title } : null,
        renamed: Boolean(BOOKS[input.id]),
      }),
    },
    Media: { __resolveType: (media: { __typename: string }) => media.__typename },
    Node: { __resolveType: (node: { __typename: string }) => node.__typename },
    Featured: { __resolveType: (media: { __typename: string }) => media.__typename },
    Book: {
      __resolveReference: ({ id }: { id: string }) => BOOKS[id] ?? null,
      // "Emma" is in a format the API schema does not show (@inaccessible).
      format: ({ id }: { id: string }) => (id === 'b2' ? 'SECRET' : 'HARDCOVER'),
      publisher: ({ id }: { id: string }) => ({ name: `House of ${id}` }),
    },
    Film: {
      // An error whose code is the name of an Object.prototype member.
      trailer: () => {
        throw new GraphQLError('no trailer', { extensions: { code: 'constructor' } });
      },
    },
  },
};

const ratings: TinySubgraph = {
  name: 'ratings',
  typeDefs: `
    type Book @key(fields: "id") {
      id: ID! pages: Int! @external title: String! @external stars: Float! rating: Rating @requires(fields: "pages") blurb: String @requires(fields: "title")
    }
    type Rating { score: Int! label: String }
    type Review @key(fields: "ref") { ref: ID! @federation__inaccessible id: ID! text: String! }`,
  resolvers: {
    Book: {
      // "ghost" is unknown here: its entity is null, so its non-null stars are missing from the data.
      __resolveReference: (reference: { id: string; pages?: number }) => (reference.id === 'ghost' ? null : reference),
      stars: ({ id }: { id: string }) => {
        if (id === 'bad') throw toGraphQLError(new DomainError('STORE_ERROR', 'ratings of bad are unavailable', { reason: 'test' }));
        return id === 'b1' ? 4.5 : 3;
      },
      rating: ({ pages }: { pages: number }) => ({ score: pages > 450 ? 5 : 4, label: pages > 450 ? 'long' : null }),
      // Whatever it is given as the title (JSON: an object of the gateway's data may have no prototype to convert it with).
      blurb: ({ title }: { title: unknown }) => `${typeof title === 'string' ? title : JSON.stringify(title)}, reviewed`,
    },
    // Only the subgraph that owns a review knows whether it exists: an unknown one is a null entity.
    Review: { __resolveReference: ({ ref }: { ref: string }) => (REVIEWS[ref] ? { ref, id: ref, text: REVIEWS[ref] } : null) },
  },
};

/**
 * `stockIsWrong`: where @apollo/gateway's answer breaks the specification, the right answer, which
 * our executor gives with the `planners` named (Hive's alone unless said: with Apollo's, its plans
 * reproduce the stock answer).
 */
const cases: Array<{
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  gatewayOnly?: string;
  /** Why no planner sees it. */
  unplanned?: string;
  stockIsWrong?: { why: string; answer: unknown; planners?: PlannerMode[] };
}> = [
  { name: 'fields from two subgraphs, __typename, @requires', query: '{ item(id: "b1") { __typename id title ... on Book { pages stars rating { score label } } ... on Film { minutes } } }' },
  { name: 'a list over an interface, aliases, a named fragment', query: '{ media(ids: ["b1", "f1", "b2", "nope"]) { id t: title ...BookBits } } fragment BookBits on Book { stars p: pages }' },
  { name: 'a union', query: '{ featured { __typename ... on Book { title stars } ... on Film { title minutes } } }' },
  { name: '__typename at the root and aliased', query: '{ kind: __typename item(id: "f1") { t: __typename ... on Film { __typename } } }' },
  {
    name: '@skip and @include, variables and literals, a default',
    query: 'query Q($withStars: Boolean!, $noTitle: Boolean = false) { item(id: "b2") { id title @skip(if: $noTitle) ... on Book { stars @include(if: $withStars) pages @include(if: true) } } }',
    variables: { withStars: true },
    gatewayOnly: 'a Condition node',
  },
  {
    name: '@skip and @include the other way',
    query: 'query Q($withStars: Boolean!, $noTitle: Boolean = false) { item(id: "b2") { id title @skip(if: $noTitle) ... on Book { stars @include(if: $withStars) } } }',
    variables: { withStars: false, noTitle: true },
    gatewayOnly: 'a Condition node',
  },
  {
    name: '@skip and @include on fields of the first fetch, beside an entity fetch',
    query: 'query Q($noTitle: Boolean = false, $pages: Boolean!) { item(id: "b1") { id title @skip(if: $noTitle) ... on Book { pages @include(if: $pages) stars } } }',
    variables: { pages: false },
  },
  { name: 'a variable of the wrong type', query: 'query Q($id: ID!) { item(id: $id) { id ... on Book { stars } } }', variables: { id: { not: 'an id' } } },
  { name: 'a missing variable', query: 'query Q($id: ID!) { item(id: $id) { id } }', variables: {} },
  { name: 'an entity fetch error in a list: the item nulls, the error at its path', query: '{ media(ids: ["b1", "bad"]) { id ... on Book { stars } } }' },
  { name: 'a null bubbling through non-null lists up to data', query: '{ shelf(ids: ["b1", "bad"]) { label ranking { id stars } } }' },
  { name: 'a null entity: non-null data missing, reported under valueCompletion', query: '{ item(id: "ghost") { id ... on Book { stars } } }' },
  { name: 'one operation of several, by name', query: 'query A { featured { __typename } } query B { item(id: "b2") { title ... on Book { stars } } }' },
  { name: 'a mutation answered by one subgraph', query: 'mutation { rename(id: "b1", title: "Dune Messiah") { id title } }' },
  // The gateway shapes federation-internals' model of the operation, where selections with the same
  // key (response name and directives, or type condition and directives) are merged at the first one.
  { name: 'inline fragments with the same type condition, apart', query: '{ item(id: "b1") { ... on Book { pages } id ... on Book { title } } }' },
  // The merged field is shaped in one go, so its errors come first.
  {
    name: 'a field selected twice, apart, each with a valueCompletion error',
    query: '{ x: item(id: "ghost") { id } y: item(id: "ghost") { ... on Book { stars } } x: item(id: "ghost") { ... on Book { stars } } }',
  },
  // Values the API schema hides (@inaccessible) are removed by shaping, on one subgraph's plan too.
  { name: 'one subgraph, an enum value the API schema hides', query: '{ book(id: "b2") { id format } }' },
  { name: 'one subgraph, an object type the API schema hides', query: '{ item(id: "s1") { __typename id } }' },
  { name: 'an enum value the API schema hides, beside an entity fetch', query: '{ item(id: "b2") { id ... on Book { format stars } } }' },
  { name: 'an object type the API schema hides, beside other items', query: '{ media(ids: ["s1", "b1"]) { __typename id ... on Book { stars } } }' },
  // The gateway's errorCodeDef looks the code up in a plain object, finds Object, and fails the whole
  // fetch (no path, the fetch's data lost).
  { name: 'a subgraph error whose code is an Object.prototype member', query: '{ item(id: "f1") { id ... on Film { trailer } } }' },
  {
    name: 'entity errors after an item that is not represented (a film)',
    query: '{ media(ids: ["f1", "bad", "b1"]) { id ... on Book { stars } } }',
    stockIsWrong: {
      why: "the stock gateway counts an `_entities` index among all the list's items, the film included: the error's path names the film",
      answer: {
        errors: [{ message: 'ratings of bad are unavailable', path: ['media', 1, 'stars'], extensions: { code: 'STORE_ERROR', details: { reason: 'test' } } }],
        data: { media: [{ id: 'f1' }, null, { id: 'b1', stars: 4.5 }] },
      },
    },
  },
  // Each representation is sent once (fetching.ts, EntityRepresentations); the gateway sends one per entity.
  { name: 'the same entity several times in a list, with @requires', query: '{ media(ids: ["b1", "b2", "b1", "f1", "b1"]) { id ... on Book { stars rating { score } } } }' },
  { name: 'the same failing entity twice: its error at each', query: '{ media(ids: ["bad", "b1", "bad"]) { id ... on Book { stars } } }' },
  { name: 'null entities and missing non-null fields in a nullable list', query: '{ media(ids: ["ghost", "b1", "nope", "ghost"]) { id ... on Book { stars rating { score } } } }' },
  {
    name: 'a named fragment spread twice and an interface fragment in a union',
    query: '{ featured { ...M __typename ...M ... on Film { minutes } } item(id: "b2") { ...M ... on Media { id } } } fragment M on Media { t: title n: __typename }',
  },
  {
    name: 'an inline fragment without type condition under @include, a variable default used in an argument',
    query: 'query Q($x: Boolean!, $id: ID! = "b2") { item(id: $id) { id ... @include(if: $x) { title } ... on Book @skip(if: false) { stars } } }',
    variables: { x: false },
  },
  // Merged selections: the first null bubbling to data stops shaping before x.
  {
    name: 'a field selected twice, apart: the first null bubbling to data hides a later error',
    query: '{ s: shelf(ids: ["ghost"]) { label } x: item(id: "ghost") { ... on Book { stars } } s: shelf(ids: ["ghost"]) { ranking { stars } } }',
  },
  { name: 'a mutation followed by an entity fetch', query: 'mutation { rename(id: "b2", title: "Emma!") { id title ... on Book { stars rating { label } } } }' },
  { name: 'only __typename at the root (no fetch)', query: '{ __typename t: __typename }', unplanned: 'the API schema answers it (gateway/executor/introspection.ts)' },
  { name: 'a subgraph null bubbling inside its own answer', query: '{ shelf(ids: ["nope"]) { label ranking { id } } item(id: "b1") { id } }' },
  { name: 'literal @include(if: false) and @skip(if: true)', query: '{ item(id: "b1") { id t: title @include(if: false) ... on Book @skip(if: true) { stars } ... on Book { pages } } }' },
  // Merged selections: stars comes before id.
  { name: 'the same field in a fragment and outside, sub-selections merged', query: '{ item(id: "b1") { ... on Book { rating { score } } id ... on Book { rating { label } stars } __typename } }' },
  // The shapes of our graph (records, createRecord, record(id:)).
  {
    name: 'a connection: edges and nodes completed by another subgraph (@requires), pageInfo and totalCount',
    query: '{ books(first: 2) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id stars } } nodes { title rating { score label } } } }',
  },
  {
    name: 'a connection page after a cursor, typed filter in variables, aliases and a fragment on the connection',
    query:
      'query Page($f: BookFilter, $after: String) { a: books(filter: $f, first: 1, after: $after) { ...PageBits } b: books(filter: { minPages: 450 }) { n: totalCount nodes { id } } } fragment PageBits on BookConnection { pageInfo { hasNextPage endCursor } edges { node { t: title stars } } }',
    variables: { f: { ids: ['b1', 'b2', 'f1'], minPages: 100 }, after: 'cursor:b1' },
  },
  { name: "an entity error in a connection's nodes: the null bubbles through the non-null list to data", query: '{ books(first: 3) { totalCount nodes { id stars } } }' },
  { name: "an entity missing in a connection's edges: reported under valueCompletion", query: '{ books(filter: { ids: ["ghost", "b1"] }) { edges { cursor node { id stars } } } }' },
  {
    name: 'a mutation with a typed input and a payload type, completed by another subgraph',
    query: 'mutation Rename($input: RenameBookInput!) { renameBook(input: $input) { renamed book { id title stars rating { label } } } }',
    variables: { input: { id: 'b2', title: 'Emma, again' } },
  },
  { name: 'nullable lookups: null for what is not there, beside data', query: '{ book(id: "nope") { id stars } item(id: "nope") { id } found: book(id: "b1") { id stars } }' },
  // A subgraph's answer that needs no shaping is answered as it came (result-shaping.ts, `adoptable`):
  // with aliases, and with a hidden enum value deep inside, which must still be found.
  { name: 'one subgraph, aliases all the way down', query: '{ s: shelf(ids: ["b1", "b2"]) { l: label r: ranking { i: id t: title p: pages } } }' },
  { name: 'one subgraph, an enum value the API schema hides deep in a list', query: '{ shelf(ids: ["b1", "b2"]) { label ranking { id title format } } }' },
  // Issue 35: aliases that meet the fields a planner adds (the key `id`, the `@requires` field `pages`,
  // `__typename`, Hive's internal aliases). The fetches ask for those under their own names; the
  // client's aliases are the answer's only. The stock gateway reads a key or a required field from the
  // client's alias of another field: its answers here are wrong.
  {
    name: 'aliases: the key aliased onto another field and back, under a list',
    query: '{ books(first: 2) { nodes { id: title title: id stars } } }',
    stockIsWrong: {
      why: 'the stock gateway sends the titles as the keys: ratings knows no such book',
      planners: ['hive', 'apollo'],
      answer: {
        data: {
          books: {
            nodes: [
              { id: 'Dune', title: 'b1', stars: 4.5 },
              { id: 'Emma', title: 'b2', stars: 3 },
            ],
          },
        },
      },
    },
  },
  {
    name: 'aliases: the required field aliased onto another field and back, under a list',
    query: '{ books(first: 2) { nodes { pages: title title: pages rating { score label } } } }',
    stockIsWrong: {
      why: 'the stock gateway sends the titles as the pages',
      planners: ['hive', 'apollo'],
      answer: {
        data: {
          books: {
            nodes: [
              { pages: 'Dune', title: 412, rating: { score: 4, label: null } },
              { pages: 'Emma', title: 474, rating: { score: 5, label: 'long' } },
            ],
          },
        },
      },
    },
  },
  {
    name: 'aliases: the key and the required field swapped, one entity',
    query: '{ book(id: "b2") { pages: id id: pages rating { score label } stars } }',
    stockIsWrong: {
      why: 'the stock gateway sends the pages as the key and the key as the pages',
      planners: ['hive', 'apollo'],
      answer: { data: { book: { pages: 'b2', id: 474, rating: { score: 5, label: 'long' }, stars: 3 } } },
    },
  },
  {
    name: 'aliases: an object aliased as the required field',
    query: '{ books(first: 2) { nodes { title: publisher { name } blurb } } }',
    stockIsWrong: {
      why: 'the stock gateway fetches no title (the alias holds the name) and sends the publisher as the title',
      planners: ['hive', 'apollo'],
      answer: {
        data: {
          books: {
            nodes: [
              { title: { name: 'House of b1' }, blurb: 'Dune, reviewed' },
              { title: { name: 'House of b2' }, blurb: 'Emma, reviewed' },
            ],
          },
        },
      },
    },
  },
  {
    name: "aliases: `__typename` and the planner's own alias names, in a named fragment",
    query: '{ books(first: 2) { nodes { ...B } } } fragment B on Book { __typename: title _internal_qp_alias_0: pages _internal_qp_alias_1: id rating { label } stars }',
    stockIsWrong: {
      why: 'the stock gateway takes the titles for type names',
      planners: ['hive', 'apollo'],
      answer: {
        data: {
          books: {
            nodes: [
              { __typename: 'Dune', _internal_qp_alias_0: 412, _internal_qp_alias_1: 'b1', rating: { label: null }, stars: 4.5 },
              { __typename: 'Emma', _internal_qp_alias_0: 474, _internal_qp_alias_1: 'b2', rating: { label: 'long' }, stars: 3 },
            ],
          },
        },
      },
    },
  },
  // An alias renamed for the planner (`title` and `pages` are field names) on the path of a subgraph error: the error's path is the client's.
  { name: "aliases: a subgraph error's path through renamed aliases", query: '{ title: books(first: 3) { pages: nodes { id stars } } }' },
  // Relay's node(id:) as our graph answers it: the subgraph that holds `node` returns another subgraph's
  // object as a stub keyed by a hidden field, whose `id` (external) comes from the owner, null when unknown.
  { name: 'node: an object of the subgraph that answers node, with fields of another', query: '{ node(id: "b1") { __typename id ... on Book { title stars } } }' },
  { name: "node: another subgraph's object from a stub, its id alone", query: '{ node(id: "review:1") { id } }' },
  { name: "node: another subgraph's object from a stub, by fragment on the interface", query: '{ node(id: "review:2") { __typename ...N ... on Review { text } } } fragment N on Node { id }' },
  { name: 'node: a stub of an object its owner does not have', query: '{ node(id: "review:9") { id ... on Review { text } } nobody: node(id: "nope") { id } }' },
  { name: 'nodes: both kinds, in order, with nulls', query: '{ nodes(ids: ["review:2", "b2", "review:9", "nope", "b1"]) { __typename id ... on Book { stars } ... on Review { text } } }' },
];

const caseNamed = (prefix: string) => cases.find((c) => c.name.startsWith(prefix))!;
const operationNameOf = (query: string) => (query.includes('query A') ? 'B' : undefined);

/** The same subgraphs behind @apollo/gateway's own planner and executor: the reference, one for both planners. */
let stock: TinyFederation;
/** Its answer to each case, asked once (the cases change nothing the subgraphs hold). */
const references = new Map<string, ReturnType<TinyFederation['query']>>();
const referenceOf = (c: (typeof cases)[number]) => {
  if (!references.has(c.name)) references.set(c.name, stock.query(c.query, c.variables, operationNameOf(c.query)));
  return references.get(c.name)!;
};
beforeAll(async () => {
  stock = await startTinyFederation([catalog, ratings], {}, { stockExecutorOnly: true });
});
afterAll(async () => {
  await stock?.stop();
});

describe.each(PLANNERS)('planned operations on the %s planner: the same answers as @apollo/gateway executing them', (planner) => {
  let library: TinyFederation;
  const hive = planner === 'hive';
  const planned = jest.spyOn((hive ? HivePlannedOperations : PlannedOperations).prototype, 'execute');
  /** Per case: whether its three requests were all answered from their plan. */
  const answeredFromPlan = new Map<string, boolean>();
  beforeAll(async () => {
    library = await startTinyFederation([catalog, ratings], {}, { planner });
  });
  afterAll(async () => {
    await library?.stop();
    planned.mockRestore();
  });

  /** A case's three requests, noting whether each was answered from its plan. */
  async function thriceNoted({ name, query, variables }: (typeof cases)[number]) {
    planned.mockClear();
    const answers = await thrice(library, query, variables, operationNameOf(query));
    const results = await Promise.all(planned.mock.results.map((r) => r.value));
    answeredFromPlan.set(name, results.length === 3 && results.every((r) => r !== null));
    return answers;
  }

  test.each(cases)('$name', async (c) => {
    const { stockIsWrong } = c;
    const reference = await referenceOf(c);
    const answers = await thriceNoted(c);
    for (const answer of answers) {
      expect(answer.status).toBe(reference.status);
      if (stockIsWrong && (stockIsWrong.planners ?? ['hive']).includes(planner)) expect(answer.json).toEqual(stockIsWrong.answer);
      else expect(answer.text).toBe(reference.text);
    }
  });

  // With Apollo's planner a plan with a Condition node stays with @apollo/gateway; with Hive's, every
  // request of every case that needs a plan is planned here.
  // The cases' requests above, noted as they were sent (sent here for a case that did not run).
  test('the requests were answered from their plan, except where the gateway keeps the operation', async () => {
    for (const c of cases) if (!answeredFromPlan.has(c.name)) await thriceNoted(c);
    const fromPlan = cases.filter((c) => answeredFromPlan.get(c.name)).map((c) => c.name);
    expect(fromPlan).toEqual(cases.filter((c) => !c.unplanned && (hive || !c.gatewayOnly)).map((c) => c.name));
  });

  test('answers as a client sees them', async () => {
    expect((await library.query(caseNamed('fields from two').query)).json).toEqual({
      data: { item: { __typename: 'Book', id: 'b1', title: 'Dune', pages: 412, stars: 4.5, rating: { score: 4, label: null } } },
    });
    const list = await library.query(caseNamed('an entity fetch error').query);
    expect(list.json).toEqual({
      data: { media: [{ id: 'b1', stars: 4.5 }, null] },
      errors: [expect.objectContaining({ path: ['media', 1, 'stars'], extensions: expect.objectContaining({ code: 'STORE_ERROR' }) })],
    });
    expect((await library.query(caseNamed('a null bubbling').query)).json).toMatchObject({ data: null, errors: [{ path: ['shelf', 'ranking', 1, 'stars'] }] });
    const ghost = await library.query(caseNamed('a null entity').query);
    expect(ghost.json.data).toEqual({ item: null });
    expect(ghost.json.extensions.valueCompletion).toEqual([expect.objectContaining({ message: 'Cannot return null for non-nullable field Book.stars.', path: ['item', 'stars'] })]);
    expect((await library.query(caseNamed('a connection: edges').query)).json).toEqual({
      data: {
        books: {
          totalCount: 4,
          pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: 'cursor:b1', endCursor: 'cursor:b2' },
          edges: [
            { cursor: 'cursor:b1', node: { id: 'b1', stars: 4.5 } },
            { cursor: 'cursor:b2', node: { id: 'b2', stars: 3 } },
          ],
          nodes: [
            { title: 'Dune', rating: { score: 4, label: null } },
            { title: 'Emma', rating: { score: 5, label: 'long' } },
          ],
        },
      },
    });
    expect((await library.query(caseNamed('an entity error in a connection').query)).json).toMatchObject({
      data: null,
      errors: [{ path: ['books', 'nodes', 2, 'stars'], extensions: { code: 'STORE_ERROR' } }],
    });
    expect((await library.query(caseNamed('nullable lookups').query)).json).toEqual({ data: { book: null, item: null, found: { id: 'b1', stars: 4.5 } } });
    expect((await library.query(caseNamed("node: another subgraph's object from a stub, its id").query)).json).toEqual({ data: { node: { id: 'review:1' } } });
    expect((await library.query(caseNamed('node: a stub of an object').query)).json).toEqual({
      data: { node: null, nobody: null },
      extensions: { valueCompletion: [expect.objectContaining({ message: 'Cannot return null for non-nullable field Review.id.', path: ['node', 'id'] })] },
    });
  });
});

/**
 * Over HTTP, an entity fetch's answer keeps the subtrees the client selects plainly (`rating`) as the
 * subgraph's text, passed through unparsed where that text is JSON.stringify's own and the value
 * what shaping would adopt (gateway/executor/passthrough.ts; /graphql only). The reference is
 * @apollo/gateway's executor over the same subgraph servers, whose fetches parse everything: the
 * same answer text for each way the subgraphs may write theirs.
 */
const WRITERS: Record<string, (result: object) => string> = {
  "JSON.stringify's text": (result) => JSON.stringify(result),
  'indented text': (result) => JSON.stringify(result, null, 2),
  'integers written as 4.0, slashes escaped': (result) =>
    JSON.stringify(result)
      .replace(/:(\d+)([,}\]])/g, ':$1.0$2')
      .replace(/\//g, '\\/'),
};

describe.each(Object.keys(WRITERS))('planned operations on the hive planner, the subgraphs over HTTP writing %s: the same answers as @apollo/gateway', (writer) => {
  let library: TinyFederation;
  let stock: TinyFederation;
  beforeAll(async () => {
    const write = WRITERS[writer]!;
    const [catalogUrl, ratingsUrl] = await Promise.all([serveSubgraph(catalog, write), serveSubgraph(ratings, write)]);
    const remote = () => ({ catalog: remoteSubgraph(catalogUrl), ratings: remoteSubgraph(ratingsUrl) });
    library = await startTinyFederation([catalog, ratings], remote(), { planner: 'hive' });
    stock = await startTinyFederation([catalog, ratings], remote(), { stockExecutorOnly: true });
  });
  afterAll(async () => {
    await library?.stop();
    await stock?.stop();
  });

  test.each(cases)('$name', async ({ query, variables, stockIsWrong }) => {
    const operationName = query.includes('query A') ? 'B' : undefined;
    const reference = await stock.query(query, variables, operationName);
    // Three at once (one fetch shared in flight, its answer frozen), then one alone.
    const answers = await Promise.all([1, 2, 3].map(() => library.query(query, variables, operationName)));
    answers.push(await library.query(query, variables, operationName));
    for (const answer of answers) {
      expect(answer.status).toBe(reference.status);
      if (stockIsWrong && (stockIsWrong.planners ?? ['hive']).includes('hive')) expect(answer.json).toEqual(stockIsWrong.answer);
      else expect(answer.text).toBe(reference.text);
    }
  });
});

describe('planned operations with a subgraph that is down', () => {
  test("the fetch error and the other subgraph's data, the same every time", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const library = await startTinyFederation([catalog, ratings], { ratings: remoteSubgraph(`http://127.0.0.1:${port}/graphql`) });
    try {
      const answers = await thrice(library, '{ media(ids: ["b1", "f1"]) { id title ... on Book { stars } } }');
      expect(answers[0]!.json).toEqual({
        data: { media: [null, { id: 'f1', title: 'Alien' }] },
        errors: [{ message: 'the remote subgraph could not be reached', extensions: { code: 'SUBGRAPH_UNAVAILABLE', details: null } }],
      });
      expect(answers[1]!.text).toBe(answers[0]!.text);
      expect(answers[2]!.text).toBe(answers[0]!.text);
    } finally {
      await library.stop();
    }
  });
});

async function thrice(federation: TinyFederation, query: string, variables?: Record<string, unknown>, operationName?: string) {
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await federation.query(query, variables, operationName));
  return answers;
}
