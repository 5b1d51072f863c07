import type { TinySubgraph } from '../../federation/tiny-federation.js';

/**
 * A small warehouse over two subgraphs, for the gateway's shared answers (the answer cache, in-flight
 * sharing): `catalog` owns shelves and the labels of items, `stock` lists the items of a shelf, so
 * that a fetch of `catalog` merges labels into items that `stock` answered once for many requests.
 */
export const WAREHOUSE_QUERY = '{ shelves { id items { id label } } }';
const SHELVES = ['a', 'b'];
const ITEMS: Record<string, string[]> = { a: ['bolt', 'nut'], b: ['washer'] };

export const WAREHOUSE_ANSWER = {
  shelves: [
    {
      id: 'a',
      items: [
        { id: 'bolt', label: 'BOLT' },
        { id: 'nut', label: 'NUT' },
      ],
    },
    { id: 'b', items: [{ id: 'washer', label: 'WASHER' }] },
  ],
};

/** How a test holds a resolver back: each answer goes through `settle` (by default, at once). */
type Settle = <T>(value: T) => T | Promise<T>;
const atOnce: Settle = (value) => value;

export function catalogSubgraph(settle: { shelves?: Settle; labels?: Settle } = {}): TinySubgraph {
  const shelves = settle.shelves ?? atOnce;
  const labels = settle.labels ?? atOnce;
  return {
    name: 'catalog',
    typeDefs: `
      type Query { shelves: [Shelf!]! }
      type Shelf @key(fields: "id") { id: ID! }
      type Item @key(fields: "id") { id: ID! label: String! }`,
    resolvers: {
      Query: { shelves: () => shelves(SHELVES.map((id) => ({ id }))) },
      Item: { __resolveReference: ({ id }: { id: string }) => labels({ id, label: id.toUpperCase() }) },
    },
  };
}

/** `items` is called once per shelf the subgraph lists (a test counts or fails them there). */
export function stockSubgraph(items: (shelf: string) => Array<{ id: string }> | Promise<Array<{ id: string }>> = itemsOf): TinySubgraph {
  return {
    name: 'stock',
    typeDefs: `
      type Shelf @key(fields: "id") { id: ID! items: [Item!]! }
      type Item @key(fields: "id", resolvable: false) { id: ID! }`,
    resolvers: {
      Shelf: {
        __resolveReference: ({ id }: { id: string }) => ({ id }),
        items: ({ id }: { id: string }) => items(id),
      },
    },
  };
}

export function itemsOf(shelf: string): Array<{ id: string }> {
  return (ITEMS[shelf] ?? []).map((item) => ({ id: item }));
}
