import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { projectPath } from '../../../kernel/project.js';
import { DomainError } from '../../../kernel/errors.js';
import { checkParsed, checkTokens } from '../../../pipeline/limits/document-size.js';
import { readSystemConfig } from '../../../server/config.js';
import { NO_AUTH } from '../../support/system.js';

/**
 * Issue 24, item 1: the default document limits (literals included) let every legitimate operation
 * through: the frontend kit's and the REST routes' (all of gateway/trusted-documents.json) and the
 * literals the docs show; what they refuse is what an attacker writes.
 */
const limits = readSystemConfig({ ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]' }).graphqlLimits;

function refusal(query: string): { code: string; details: unknown } | null {
  try {
    checkTokens(query, limits.maxTokens);
    checkParsed(parse(query), limits);
    return null;
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, details: error.details };
    throw error;
  }
}

const manifest = JSON.parse(readFileSync(projectPath('gateway', 'trusted-documents.json'), 'utf8')) as { operations: { name: string; body: string }[] };

test.each(manifest.operations.map((operation) => [operation.name, operation.body]))('the listed operation %s is within the default limits', (_name, body) => {
  expect(refusal(body)).toBeNull();
});

test.each([
  [
    'the README filter',
    '{ records(filter: { conditions: [{ field: PAYLOAD, path: "product_info.product_category", operator: EQ, value: { string: "Battery" } }] }, orderBy: [{ field: CREATED_AT, direction: DESC }]) { totalCount } }',
  ],
  ['an assessment written inline', readAssessmentInline()],
  ['a default value', 'query($f: RecordFilter = { conditions: [{ field: MODEL, operator: EQ, value: { string: "x" } }] }) { records(filter: $f) { totalCount } }'],
])('%s is within the default limits', (_name, query) => {
  expect(refusal(query)).toBeNull();
});

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

test.each([
  ['an argument', `{ modelVersion(model: "m", version: "v") { validation(payload: { x: ${nested(40)} }) { passed } } }`, 41],
  ['a variable default', `query($p: JSONObject = { x: ${nested(40)} }) { modelVersion(model: "m", version: "v") { validation(payload: $p) { passed } } }`, 41],
  ['a directive argument', `{ modelVersionCount @skip(if: ${nested(12, 'false')}) }`, 12],
  ['objects alone', `{ modelVersion(model: "m", version: "v") { validation(payload: ${'{ a: '.repeat(11)}1${' }'.repeat(11)}) { passed } } }`, 11],
])('a literal nested too deep in %s: LITERAL_TOO_DEEP with the depth found', (_where, query, depth) => {
  expect(refusal(query)).toEqual({ code: 'LITERAL_TOO_DEEP', details: { limit: 10, actual: depth } });
});

test('one level under the depth limit passes; the values of all literals together are bounded', () => {
  expect(refusal(`{ modelVersion(model: "m", version: "v") { validation(payload: { x: ${nested(9)} }) { passed } } }`)).toBeNull();
  const wide = (n: number) => `{ x: [${Array.from({ length: n }, () => '1').join(' ')}] }`;
  // 1 field + 999 items = 1,000 values; split over two arguments, the sum still counts.
  expect(refusal(`{ modelVersion(model: "m", version: "v") { validation(payload: ${wide(999)}) { passed } } }`)).toBeNull();
  expect(
    refusal(
      `{ a: modelVersion(model: "m", version: "v") { validation(payload: ${wide(500)}) { passed } } b: modelVersion(model: "m", version: "v") { validation(payload: ${wide(500)}) { passed } } }`,
    ),
  ).toEqual({ code: 'LITERAL_TOO_LARGE', details: { limit: 1000, actual: 1002 } });
});

/** The example assessment as a GraphQL literal, the way a developer pastes it into GraphiQL. */
function readAssessmentInline(): string {
  const request = JSON.parse(readFileSync(projectPath('examples', 'models', 're-indicators-specification', '0.0.4', 'example-assessment.request.json'), 'utf8'));
  const literal = (value: unknown): string =>
    Array.isArray(value)
      ? `[${value.map(literal).join(' ')}]`
      : value !== null && typeof value === 'object'
        ? `{ ${Object.entries(value)
            .map(([k, v]) => `${k}: ${literal(v)}`)
            .join(' ')} }`
        : JSON.stringify(value);
  return `{ modelVersion(model: "re-indicators-specification", version: "0.0.4") { validation(payload: ${literal(request.payload)}) { passed } } }`;
}
