import fc from 'fast-check';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../../kernel/project.js';
import type { Answer } from './system.js';

/**
 * What an attacker sends, for the property-based tests of issue 8 ("hostile input"), and what every
 * answer must look like whatever was sent.
 */

/** Keys aimed at prototypes, other query languages, SQL and quoting. */
const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '$where',
  '$gt',
  '$ne',
  "'; DROP TABLE records; --",
  '" OR "1"="1',
  "a'b",
  'a"b',
  'a\\b',
  'a\\"b',
  '\u0000',
  '\u202e',
  '\ud83d\ude00',
  '\ud800',
  'payload',
  'filter',
  'where',
  'id',
  'model',
  '..',
  '[0]',
  '',
  ' ',
];

const HOSTILE_STRINGS = [
  ...HOSTILE_KEYS,
  '\\',
  '\\\\',
  "'",
  '"',
  "''",
  '%',
  '_',
  '\\%',
  ' OR 1=1',
  "') OR ('a'='a",
  '1e309',
  'NaN',
  'Infinity',
  'null',
  'true',
  '2025-01-01T00:00:00Z',
  '2025-13-45T99:99:99Z',
  '-1',
  '9'.repeat(400),
  'x'.repeat(5000),
  '\u0000\u0000',
  '\udfff\ud800',
  '\u2028\u2029',
];

/** Beyond double precision, beyond 64-bit integers, subnormal, negative zero. */
const HOSTILE_NUMBERS = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -(2 ** 63), 2 ** 64, 5e-324, 1e-320, -0, 123456789012345680000, 0.1 + 0.2];

export const hostileString = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ unit: 'binary', maxLength: 24 }), fc.string({ maxLength: 8 }));
const hostileKey = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ unit: 'binary', maxLength: 10 }), fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/));
const hostileNumber = fc.oneof(fc.constantFrom(...HOSTILE_NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
const scalar = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/**
 * JSON values with hostile keys and scalars. Objects are built with `Object.fromEntries`, which
 * defines `__proto__` as an own key, exactly as `JSON.parse` reads it from a request.
 */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 5 }).map((entries) => Object.fromEntries(entries)),
})).value;

export const hostileObject = fc.array(fc.tuple(hostileKey, hostileJson), { maxLength: 6 }).map((entries) => Object.fromEntries(entries));

/** A value buried under 1 to `max` arrays or objects: both sides of SERVER_JSON_MAX_DEPTH. */
export const deeplyNested = (max: number) => fc.tuple(fc.integer({ min: 1, max }), fc.boolean(), hostileJson).map(([depth, arrays, inner]) => nest(inner, depth, arrays));

function nest(inner: unknown, depth: number, arrays = true): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { d: value };
  return value;
}

/** A request body as text: JSON of a hostile value, or such text cut short or garbled. */
export const hostileBodyText = fc.oneof(
  hostileJson.map((value) => JSON.stringify(value)),
  fc
    .tuple(
      hostileJson.map((value) => JSON.stringify(value)),
      fc.nat(),
    )
    .map(([text, cut]) => text.slice(0, cut % (text.length + 1))),
  fc.constantFrom('', ' ', '{', '[', '{"a":}', '{"a" 1}', '[1,]', 'NaN', '{"a":Infinity}', "{'a':1}", '\ufeff{}', '"\\ud800"', '{"a":"\\u0000"}', '['.repeat(5000)),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Property runs per property: enough to find what breaks, few enough to keep the suite fast. */
export const RUNS = { numRuns: 150 };

/** What must never reach a client: stack frames, source paths, driver or SQL text. */
const LEAKS = [
  /\n\s+at /,
  /\bat [\w$.<>]+ \([^)]*:\d+:\d+\)/,
  /node_modules/,
  /\.[jt]s:\d+/,
  /syntax error|SQLSTATE|prisma|sqlite|postgres|relation "|violates|invalid input syntax|unsupported Unicode escape|invalid byte sequence/i,
];

/** The answer leaks nothing of the server's insides. */
export function expectNoLeak(answer: Answer): void {
  for (const leak of LEAKS) expect(answer.text).not.toMatch(leak);
}

/** `{code, message, details}` with exactly those keys, `code` one of `codes`, for the given status. */
export function expectCodeEnvelope(answer: Answer, codes: Record<number, string[]>): void {
  expect({ status: answer.status, allowed: Object.keys(codes).map(Number).includes(answer.status) }).toEqual({ status: answer.status, allowed: true });
  if (answer.status < 300) return;
  expect(Object.keys(answer.json ?? {}).sort()).toEqual(['code', 'details', 'message']);
  expect(codes[answer.status]).toContain(answer.json.code);
  expect(typeof answer.json.message).toBe('string');
}

/** The impact facade's FastAPI shapes: 400 text detail, 422 issue list, 501 `{detail:{code, message}}`. */
export function expectImpactEnvelope(answer: Answer): void {
  expect([400, 422, 501]).toContain(answer.status);
  if (answer.status === 400) expect(answer.json).toEqual({ detail: 'There was an error parsing the body' });
  if (answer.status === 422) expect(answer.json.detail).toEqual(expect.arrayContaining([expect.objectContaining({ type: expect.any(String), loc: expect.any(Array), msg: expect.any(String) })]));
  if (answer.status === 501) expect(answer.json).toEqual({ detail: { code: 'CALCULATION_NOT_IMPLEMENTED', message: expect.any(String) } });
}

const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;

/**
 * A system to throw hostile input at: the bundled sample model (real JSON Schema, SHACL and OWL)
 * as `re-indicators-specification` 0.0.4 (the indicator service validates through it), and `bare`
 * 0.1 with no artifacts, whose `:create` stores any payload.
 */
export const HOSTILE_SYSTEM_ENV = {
  REGISTRY_CATALOG_JSON: JSON.stringify([
    { model: 're-indicators-specification', version: '0.0.4', base_url: `${SAMPLE}/` },
    { model: 'bare', version: '0.1' },
  ]),
  REGISTRY_ALLOW_FILE_URLS: 'true',
  ARTIFACT_BASE_URL_TEMPLATE: `${pathToFileURL(projectPath('examples', 'models', 're-indicators-specification')).href}/{version}/`,
  BACKGROUND_PROJECT_DIR: projectPath('examples', 'brightway-project'),
};

/**
 * HOSTILE_SYSTEM_ENV as the models subgraph on a port of its own (PROCESS_ROLE=subgraph), two
 * workers, the gateway's shared secret `secret`, on the records store at `databaseUrl`.
 */
export function hostileSubgraphPortEnv(databaseUrl: string, secret: string): Record<string, string> {
  return { ...HOSTILE_SYSTEM_ENV, DATABASE_URL: databaseUrl, WORKERS: '2', PROCESS_ROLE: 'subgraph', SUBGRAPH: 'models', SUBGRAPH_PORT: '0', GATEWAY_SUBGRAPH_SECRET: secret };
}
