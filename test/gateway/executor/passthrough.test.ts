import fc from 'fast-check';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { type OperationDefinitionNode, parse } from 'graphql';
import { composeSubgraphs } from '../../../gateway/compose.js';
import { federatedSupergraph } from '../../../gateway/executor/supergraph.js';
import { operationShape } from '../../../gateway/executor/answers.js';
import { type RawField, adoptsAsItStands } from '../../../gateway/executor/result-shaping.js';
import { parseWithRawSubtrees, passed, rawSubtrees, scanPassthrough } from '../../../gateway/executor/passthrough.js';
import { deepMerge } from '../../../gateway/executor/fetching.js';
import { RawJson, Utf8Parts, jsonText } from '../../../kernel/raw-json.js';
import { deepFreeze, jsonCopy, thawed } from '../../../kernel/json.js';
import { jsonBytes, rememberJsonBytes } from '../../../kernel/request-budget.js';
import { answerUtf8 } from '../../../kernel/http/answer-text.js';
import { jsonPieces } from '../../../kernel/http/json-pieces.js';
import { FEDERATION_LINK } from '../../federation/tiny-federation.js';

/**
 * gateway/executor/passthrough.ts: a subtree of a subgraph's answer stays as its text only where
 * that text is JSON.stringify's own and result shaping would adopt the value as it stands; and
 * kernel/raw-json.ts: such a subtree is written, counted, copied and merged as the value it stands for.
 */
const SUBGRAPH = `${FEDERATION_LINK}
  scalar JSON
  enum Color { RED GREEN }
  type Query { item: Item }
  type Item @key(fields: "id") { id: ID! parts: [Part!]! part: Part }
  type Sub { s: String! }
  type Part { code: ID label: String weight: Float! count: Int flag: Boolean color: Color colors: [Color!] any: JSON sub: Sub }`;

const { supergraphSdl } = composeSubgraphs([{ name: 'shop', sdl: printSubgraphSchema(buildSubgraphSchema({ typeDefs: parse(SUBGRAPH), resolvers: {} })) }]);
const federated = federatedSupergraph(supergraphSdl!).apiSchema;
const schema = federated.toGraphQLJSSchema();

/** The fields of `item` that may stay as text in `query`'s answer. */
function rawFields(query: string): ReadonlyMap<string, RawField> | null {
  const document = parse(query);
  const shape = operationShape(schema, federated, document, document.definitions[0] as OperationDefinitionNode);
  return shape!.rawFieldsAt(['item']);
}

const PART_FIELDS = 'code label weight count flag color colors any sub { s }';
const parts = rawFields(`{ item { id parts { ${PART_FIELDS} } part { ${PART_FIELDS} } } }`)!.get('parts')!;
const part = rawFields(`{ item { part { ${PART_FIELDS} } } }`)!.get('part')!;

const PART = { code: 'p1', label: 'Dune', weight: 0.25, count: 3, flag: true, color: 'RED', colors: ['GREEN'], any: 'x', sub: { s: 's' } };
const text = (value: unknown) => JSON.stringify(value);
/** What the socket is handed for an answer's text: its parts' bytes in order, or the string's. */
const bytesOf = (written: string | Utf8Parts) => Buffer.concat((typeof written === 'string' ? [written] : written.parts).map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
const scanned = (value: string, field: RawField = part) => scanPassthrough(Buffer.from(value), 0, field.shape, field.selections);
/** Where a scan of `value`'s text ends: its UTF-8 bytes. */
const ending = (value: unknown) => Buffer.byteLength(text(value));

describe('which fields may stay as text', () => {
  test('a field selected plainly, with fields under it; not a leaf, nor the key', () => {
    expect([...rawFields(`{ item { id parts { ${PART_FIELDS} } part { code } } }`)!.keys()]).toEqual(['parts', 'part']);
  });

  test('an alias the planner keeps as the client wrote it: the subgraph answers under it too (as `adoptable` takes it)', () => {
    expect([...rawFields('{ item { parts { c: code } } }')!.keys()]).toEqual(['parts']);
  });

  test.each([
    ['__typename inside', '{ item { parts { __typename code } } }'],
    ['@skip inside', '{ item { parts { code @skip(if: true) } } }'],
    ['@include on it', '{ item { parts @include(if: true) { code } } }'],
    ['a fragment inside', '{ item { parts { ... on Part { code } } } }'],
    ['selected twice, once in a conditional fragment', '{ item { parts { code } ... @include(if: true) { parts { label } } } }'],
  ])('none with %s', (_, query) => {
    expect(rawFields(query)).toBeNull();
  });
});

describe('scanPassthrough', () => {
  test("JSON.stringify's text of an adoptable value: its end, and its bytes as the budget counts them", () => {
    const value = [PART, { ...PART, code: 12, label: null, any: null, sub: null, colors: [] }];
    expect(scanned(text(value), parts)).toEqual({ end: ending(value), bytes: jsonBytes(value) });
    const inside = Buffer.from(`{"a":1,"parts":${text(value)},"b":2}`);
    expect(scanPassthrough(inside, 15, parts.shape, parts.selections)).toEqual({ end: 15 + ending(value), bytes: jsonBytes(value) });
  });

  test('strings: escapes as JSON.stringify writes them, non-ASCII and pairs as they are; long ones counted in UTF-8 bytes', () => {
    for (const label of ['"quoted" \\ back\nline\ttab\b\f\r', '\u0001\u001f\u007f', 'é€😀 ', '\u2028\u2029', 'ü'.repeat(70), '😀'.repeat(40)]) {
      const value = { ...PART, label };
      expect(scanned(text(value))).toEqual({ end: ending(value), bytes: jsonBytes(value) });
    }
  });

  test('numbers as JavaScript writes them', () => {
    for (const weight of [0.1, -0.5, 0.000001, 1e-7, 123.456, 100.5, 0.30000000000000004, 123456789012.345, 1.7976931348623157e308, 5e-324, 2 ** 53 + 2, 1e21]) {
      const value = { ...PART, weight };
      expect(scanned(text(value))).toEqual({ end: ending(value), bytes: jsonBytes(value) });
    }
  });

  test("a selection past what is compiled is refused, its subtrees parsed (a scan's code grows with its selection)", () => {
    const withFields = (count: number) => {
      const field = rawFields(`{ item { parts { ${Array.from({ length: count }, (_, i) => `a${i}: code`).join(' ')} } } }`)!.get('parts')!;
      const value = [Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, 'p1']))];
      return scanPassthrough(Buffer.from(text(value)), 0, field.shape, field.selections);
    };
    expect(withFields(1_990)).toBeDefined();
    expect(withFields(2_001)).toBeUndefined();
  });

  const canonical = text(PART);
  test.each([
    ['whitespace', JSON.stringify(PART, null, 1)],
    ['a space after a colon', canonical.replace('"code":', '"code": ')],
    ['an escaped slash', canonical.replace('Dune', 'Du\\/ne')],
    ['a \\u escape of a printable character', canonical.replace('Dune', '\\u0044une')],
    ['upper-case hex', text({ ...PART, label: '\u001f' }).replace('\\u001f', '\\u001F')],
    ['\\u0008 where JSON.stringify writes \\b', text({ ...PART, label: '\b' }).replace('\\b', '\\u0008')],
    ["a lone surrogate's escape", text({ ...PART, label: '\ud800' })],
    ['-0', canonical.replace('"count":3', '"count":-0')],
    ['1.0', canonical.replace('"weight":0.25', '"weight":1.0')],
    ['a fraction ending in 0', canonical.replace('"weight":0.25', '"weight":0.250')],
    ['a fraction JavaScript writes with an exponent', canonical.replace('"weight":0.25', '"weight":0.0000001')],
    ['a fraction with a leading zero', canonical.replace('"weight":0.25', '"weight":00.25')],
    ['a fraction past what a double keeps', canonical.replace('"weight":0.25', '"weight":0.12345678901234567')],
    ['an exponent JavaScript does not write', canonical.replace('"weight":0.25', '"weight":25e-2')],
    ['a leading zero', canonical.replace('"count":3', '"count":03')],
    ['digits beyond a double', canonical.replace('"weight":0.25', '"weight":12345678901234567890')],
    ['an object as a custom scalar', text({ ...PART, any: { a: 1 } })],
    ['a list as a custom scalar', text({ ...PART, any: [1] })],
    ['a field missing', text({ ...PART, sub: undefined })],
    ['a field added', text({ ...PART, extra: 1 })],
    ['fields out of order', text({ label: 'Dune', ...(({ label: _, ...rest }) => rest)(PART) })],
    ['a field added below', text({ ...PART, sub: { s: 's', t: 1 } })],
    ['an enum value the type lacks', text({ ...PART, color: 'BLUE' })],
    ['an escaped enum value', canonical.replace('"RED"', '"R\\u0045D"')],
    ['null where the type forbids it', text({ ...PART, weight: null })],
    ['null in a list of non-null', text({ ...PART, colors: [null] })],
    ['a fraction as an Int', text({ ...PART, count: 1.5 })],
    ['an Int past 1e21', text({ ...PART, count: 1e21 })],
    ['a fraction as an ID', text({ ...PART, code: 1.5 })],
    ['a string as a Boolean', text({ ...PART, flag: 'true' })],
    ['a number as a String', text({ ...PART, label: 1 })],
    ['an object where a list is selected', text({ ...PART, colors: { a: 'RED' } })],
    ['a list where an object is selected', text({ ...PART, sub: [{ s: 's' }] })],
    ['text cut short', canonical.slice(0, -3)],
  ])('refuses %s', (_, refused) => {
    expect(scanned(refused)).toBeUndefined();
  });

  /** Values of a Part, right or wrong for its type, and texts of them, JSON.stringify's or not. */
  const anyJson = fc.jsonValue({ maxDepth: 2 });
  const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 1e21, 2 ** 53 + 2, 0.1, 1e-7, 5e-324));
  const string = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('RED', 'GREEN', 'BLUE', '\ud800x', 'a/b'));
  const leaf = fc.oneof(string, number, fc.boolean(), fc.constant(null));
  const partValue = fc
    .record({
      code: fc.oneof(string, fc.integer(), leaf),
      label: fc.oneof(string, leaf),
      weight: fc.oneof(number, leaf),
      count: fc.oneof(fc.integer(), number, leaf),
      flag: fc.oneof(fc.boolean(), leaf),
      color: fc.oneof(fc.constantFrom('RED', 'GREEN', 'BLUE'), leaf),
      colors: fc.oneof(fc.array(fc.oneof(fc.constantFrom('RED', 'GREEN'), leaf), { maxLength: 3 }), leaf),
      any: fc.oneof(leaf, anyJson),
      sub: fc.oneof(fc.record({ s: fc.oneof(string, leaf) }), fc.constant(null), anyJson),
      extra: fc.option(leaf, { nil: undefined }),
    })
    .chain((value) => fc.boolean().map((shuffled) => (shuffled ? Object.fromEntries(Object.entries(value).reverse()) : value)));
  const rewrite = fc.constantFrom(
    (t: string) => t,
    (t: string) => t,
    (t: string) => JSON.stringify(JSON.parse(t), null, 1),
    (t: string) => t.replace(/:(\d+)([,}\]])/, ':$1.0$2'),
    (t: string) => t.replace(/:(-?\d+)([,}\]])/, ':$1e0$2'),
    (t: string) => t.replace(/"([A-Za-z])/, (_, c: string) => `"\\u00${c.charCodeAt(0).toString(16)}`),
    (t: string) => t.replace(/\\u00([0-9a-f]{2})/, (_, hex: string) => `\\u00${hex.toUpperCase()}`),
    (t: string) => t.replace(/\\n/, '\\u000a'),
    (t: string) => t.replace('/', '\\/'),
    (t: string) => t.replace(/:0([,}\]])/, ':-0$1'),
    (t: string) => t.replace(/:(-?\d+\.\d+)([,}\]])/, ':$10$2'),
  );

  test('property: it refuses, or the span is JSON.stringify(JSON.parse(span)), adoptable, counted as the budget counts it; and it takes every such text', () => {
    fc.assert(
      fc.property(fc.array(partValue, { maxLength: 3 }), rewrite, (value, rewritten) => {
        const written = rewritten(JSON.stringify(value));
        const result = scanPassthrough(Buffer.from(`[${written}]`), 1, parts.shape, parts.selections);
        const parsed: unknown = JSON.parse(written);
        const isCanonical = JSON.stringify(parsed) === written;
        if (result) {
          expect(result.end).toBe(1 + Buffer.byteLength(written));
          expect(isCanonical).toBe(true);
          expect(adoptsAsItStands(parts, parsed)).toBe(true);
          expect(result.bytes).toBe(jsonBytes(parsed));
        } else if (isCanonical && adoptsAsItStands(parts, parsed)) {
          // What it may refuse of such a text: a lone surrogate's escape, a custom scalar's object or list.
          const anys = (parsed as Array<{ any: unknown }>).map((p) => p.any);
          expect(/\\ud[89a-f]/.test(written) || anys.some((any) => typeof any === 'object' && any !== null)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('subtrees that passed, remembered by their bytes (passed-subtrees.ts)', () => {
  /** A list of `count` parts, distinct by `tag`: 130-odd bytes a part, past the 4 KB a subtree needs to be kept from 32 parts. */
  const many = (count: number, tag = 'p') => Array.from({ length: count }, (_, i) => ({ ...PART, code: `${tag}${i}` }));
  const big = many(100);
  const bigText = text(big);

  test('the same bytes again pass with the same end and count, wherever they stand in the answer', () => {
    const expected = { end: ending(big), bytes: jsonBytes(big) };
    expect(scanned(bigText, parts)).toEqual(expected);
    expect(scanned(bigText, parts)).toEqual(expected);
    const inside = Buffer.from(`{"x":[1,2],"parts":${bigText}}`);
    expect(scanPassthrough(inside, 19, parts.shape, parts.selections)).toEqual({ end: 19 + expected.end, bytes: expected.bytes });
  });

  test('bytes that differ from a remembered subtree anywhere are scanned: one the scan refuses is refused', () => {
    expect(scanned(bigText, parts)).toBeDefined();
    const lastWeight = bigText.lastIndexOf('0.25');
    expect(scanned(`${bigText.slice(0, lastWeight)}0.250${bigText.slice(lastWeight + 4)}`, parts)).toBeUndefined();
    const lastColor = bigText.lastIndexOf('"RED"');
    expect(scanned(`${bigText.slice(0, lastColor)}"BLUE"${bigText.slice(lastColor + 5)}`, parts)).toBeUndefined();
  });

  test('a text that ends inside a remembered subtree is refused, not read past its end', () => {
    expect(scanned(bigText, parts)).toBeDefined();
    expect(scanned(bigText.slice(0, -1), parts)).toBeUndefined();
    expect(scanned(bigText.slice(0, 5000), parts)).toBeUndefined();
  });

  test("bytes one operation's field passed are scanned again for another's: a selection they do not fit refuses them", () => {
    expect(scanned(bigText, parts)).toBeDefined();
    const codesOnly = rawFields('{ item { parts { code } } }')!.get('parts')!;
    expect(scanned(bigText, codesOnly)).toBeUndefined();
    const codes = text(big.map(({ code }) => ({ code })));
    expect(scanned(codes, codesOnly)).toEqual({ end: ending(JSON.parse(codes)), bytes: jsonBytes(JSON.parse(codes)) });
  });

  test('a subgraph that sends a new large subtree each time: what is held stays bounded, and a subtree past 512 KB is never kept', () => {
    const sizes = Array.from({ length: 40 }, (_, n) => {
      const subtree = text(many(200, `t${n}-`));
      expect(scanned(subtree, parts)).toBeDefined();
      return Buffer.byteLength(subtree);
    });
    const held = passed.heldBytes();
    // The last eight, no more: the ones before them were replaced.
    expect(held).toBe(sizes.slice(-8).reduce((sum, size) => sum + size, 0));
    const huge = many(5_000, 'h');
    expect(Buffer.byteLength(text(huge))).toBeGreaterThan(512 * 1024);
    expect(scanned(text(huge), parts)).toEqual({ end: ending(huge), bytes: jsonBytes(huge) });
    expect(passed.heldBytes()).toBeLessThanOrEqual(held);
  });
});

describe('parseWithRawSubtrees', () => {
  const raw = rawSubtrees('_entities', new Map([['parts', parts]]));
  const partsText = text([PART]);

  test('each entity field named kept as its text, the rest parsed', () => {
    const answer = `{"data":{"_entities":[{"parts":${partsText},"id":"i1"},null,{"parts":[]}]},"errors":[{"message":"m","path":["_entities",1]}]}`;
    const body = parseWithRawSubtrees(Buffer.from(answer), raw) as { data: { _entities: Array<Record<string, unknown> | null> }; errors: unknown };
    const [first, second, third] = body.data._entities;
    expect(first!.parts).toBeInstanceOf(RawJson);
    expect((first!.parts as RawJson).text).toBe(partsText);
    expect(first!.id).toBe('i1');
    expect(second).toBeNull();
    expect(third!.parts).toBeInstanceOf(RawJson);
    expect(body.errors).toEqual([{ message: 'm', path: ['_entities', 1] }]);
    expect(jsonText(body)).toBe(answer);
  });

  test('a subtree that does not pass is parsed, the others kept', () => {
    const answer = `{"data":{"_entities":[{"parts":[{"code":1.0}]},{"parts":${partsText}}]}}`;
    const body = parseWithRawSubtrees(Buffer.from(answer), raw) as { data: { _entities: Array<Record<string, unknown>> } };
    expect(body.data._entities[0]!.parts).toEqual([{ code: 1 }]);
    expect(body.data._entities[1]!.parts).toBeInstanceOf(RawJson);
  });

  test.each([
    ['whitespace around', `{"data": {"_entities":[{"parts":${partsText}}]}}`],
    ['a name twice', `{"data":{"_entities":[{"parts":${partsText},"parts":[]}]}}`],
    ['data twice', `{"data":{"_entities":[{"parts":${partsText}}]},"data":null}`],
    ['text after the answer', `{"data":{"_entities":[{"parts":${partsText}}]}}x`],
    ['not JSON around the subtree', `{"data":{"_entities":[{"parts":${partsText}},]}}`],
    ['nothing to keep', `{"data":{"_entities":[{"id":"i1"}]}}`],
    ['no data', `{"errors":[{"message":"m"}]}`],
  ])('undefined (parsed whole, as before) with %s', (_, answer) => {
    expect(parseWithRawSubtrees(Buffer.from(answer), raw)).toBeUndefined();
  });

  test('undefined (decoded and parsed whole, as before) when the answer is not UTF-8: a lone surrogate, a stray byte', () => {
    for (const bad of [Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xff])]) {
      const [before, after] = `{"data":{"_entities":[{"parts":${text([{ ...PART, label: '@' }])}}]}}`.split('@');
      expect(parseWithRawSubtrees(Buffer.concat([Buffer.from(before!), bad, Buffer.from(after!)]), raw)).toBeUndefined();
      expect(parseWithRawSubtrees(Buffer.from(`${before}x${after}`), raw)).toBeDefined();
    }
  });
});

describe('a subtree kept as text', () => {
  const value = [PART, { ...PART, label: 'é"\n' }];
  const raw = () => new RawJson(Buffer.from(text(value)), jsonBytes(value), parts.shape);

  test('is written as its text wherever it is, and as its value by JSON.stringify', () => {
    const answer = { data: { item: { parts: raw(), deeper: { x: [raw()] } } } };
    const expected = JSON.stringify({ data: { item: { parts: value, deeper: { x: [value] } } } });
    expect(bytesOf(answerUtf8(answer, ''))).toEqual(Buffer.from(expected));
    expect(bytesOf(answerUtf8(deepFreeze({ data: { a: { b: { c: raw() } } } }), ''))).toEqual(Buffer.from(JSON.stringify({ data: { a: { b: { c: value } } } })));
    expect([...jsonPieces({ big: 'x'.repeat(70_000), parts: raw() })].join('')).toBe(JSON.stringify({ big: 'x'.repeat(70_000), parts: value }));
    expect(JSON.stringify({ parts: raw() })).toBe(JSON.stringify({ parts: value }));
    expect(jsonText(raw())).toBe(text(value));
  });

  test("is an answer's part as it came, the text around it parts to encode: together the bytes of JSON.stringify's text", () => {
    const answer = { data: { item: { name: 'ü€😀', parts: raw(), deeper: deepFreeze({ x: [raw()] }) } } };
    const written = answerUtf8(answer, '\n');
    const expected = Buffer.from(`${JSON.stringify({ data: { item: { name: 'ü€😀', parts: value, deeper: { x: [value] } } } })}\n`);
    expect(written).toBeInstanceOf(Utf8Parts);
    expect(bytesOf(written)).toEqual(expected);
    expect((written as Utf8Parts).byteLength).toBe(expected.length);
    expect((written as Utf8Parts).text()).toBe(expected.toString('utf8'));
    // Nothing kept as bytes: one string.
    expect(answerUtf8({ data: { a: 'é' } }, '\n')).toBe('{"data":{"a":"é"}}\n');
  });

  test('is counted by the budget as its value, without a walk', () => {
    expect(jsonBytes({ a: raw() })).toBe(jsonBytes({ a: value }));
    expect(rememberJsonBytes({ a: raw() })).toBe(jsonBytes({ a: value }));
  });

  test('is taken whole by jsonCopy and deepFreeze, parsed by thawed and by what merges into it', () => {
    const kept = raw();
    expect((jsonCopy({ a: kept }) as { a: unknown }).a).toBe(kept);
    expect(deepFreeze({ a: kept }).a).toBe(kept);
    const parent: Record<string, unknown> = { a: kept };
    expect(thawed(parent, 'a')).toEqual(value);
    expect(parent.a).toEqual(value);

    const into: Record<string, unknown> = {};
    deepMerge(into, { parts: kept });
    expect(into.parts).toBe(kept);
    deepMerge(into, { parts: [{ extra: 1 }, { extra: 2 }] });
    expect(into.parts).toEqual([
      { ...PART, extra: 1 },
      { ...value[1], extra: 2 },
    ]);
    const onto: Record<string, unknown> = { parts: [{ first: 0 }, { first: 1 }] };
    deepMerge(onto, { parts: raw() });
    expect(onto.parts).toEqual([
      { first: 0, ...PART },
      { first: 1, ...value[1] },
    ]);
  });
});
