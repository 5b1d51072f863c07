import { DOCUMENTS_KEPT, documentLru } from '../../../kernel/graphql/document-lru.js';

/**
 * The caches kept per distinct document (parsed documents, verdicts, plans): a document is kept on
 * its second sighting, so one sent once (a flood of distinct documents) is never kept and never
 * pushes out those clients send again and again; persisted queries keep theirs at once.
 */
describe('documentLru', () => {
  const textLength = (_: string, key: string) => key.length;

  test('a document set once is not kept; set again, it is', () => {
    const cache = documentLru<string>(textLength);
    cache.set('{ a }', 'parsed a');
    expect(cache.get('{ a }')).toBeUndefined();
    cache.set('{ a }', 'parsed a');
    expect(cache.get('{ a }')).toBe('parsed a');
  });

  test('a flood of distinct documents, each sent once, leaves the documents sent again in place', () => {
    const cache = documentLru<string>(textLength);
    const served = ['query Passport { a }', 'query Questionnaire { b }'];
    for (const text of [...served, ...served]) cache.set(text, `parsed ${text}`);
    for (let i = 0; i < 5 * DOCUMENTS_KEPT; i++) {
      const flood = `query Q${i} { a }`;
      if (cache.get(flood) === undefined) cache.set(flood, `parsed ${flood}`);
      expect(cache.get(flood)).toBeUndefined();
    }
    for (const text of served) expect(cache.get(text)).toBe(`parsed ${text}`);
  });

  test('documents sent again are kept up to the bound, the least recently used going first', () => {
    const cache = documentLru<string>(textLength);
    const texts = Array.from({ length: DOCUMENTS_KEPT + 10 }, (_, i) => `query R${i} { a }`);
    for (const text of texts) {
      cache.set(text, text);
      cache.set(text, text);
    }
    expect(texts.slice(0, 10).map((text) => cache.get(text))).toEqual(Array(10).fill(undefined));
    expect(texts.slice(10).every((text) => cache.get(text) === text)).toBe(true);
  });

  test('with admitFirstSighting (persisted queries: a text registered once, then its hash alone), a document is kept at once', () => {
    const cache = documentLru<string>(textLength, { admitFirstSighting: true });
    cache.set('apq:abc', '{ a }');
    expect(cache.get('apq:abc')).toBe('{ a }');
  });
});
