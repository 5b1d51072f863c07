import { readFileSync, readdirSync } from 'node:fs';
import { Kind, type OperationDefinitionNode, getIntrospectionQuery, parse } from 'graphql';
import { projectPath } from '../../../kernel/project.js';
import { fragmentsOf } from '../../../pipeline/limits/measure.js';
import { operationSelections } from '../../../pipeline/limits/selections.js';
import { readSystemConfig } from '../../../server/config.js';
import { SCHEMA, operationOf, refusalOf } from './limit-harness.js';

/** Issue 35's document: fragment Fi spreads F(i+1) twice, the last selects one field (1,179 bytes with 24 fragments). */
function doublingChain(fragments: number, spread: (next: string) => string = (next) => `...${next} ...${next}`): string {
  const chain = Array.from({ length: fragments }, (_, i) => `fragment F${i} on Part { ${spread(`F${i + 1}`)} }`).join(' ');
  return `{ parts { ...F0 } } ${chain} fragment F${fragments} on Part { name }`;
}

describe('operation selections once fragments are spread (GRAPHQL_MAX_SELECTIONS)', () => {
  test.each([
    ['{ parts { id } }', 2],
    ['{ part(id: 1) { parts { id name } maker { name } } }', 6],
    // Inline fragments are selections of their own, as a planner holds them.
    ['{ node(id: 1) { ... on Part { id } ... on Maker { name } } }', 5],
    // A fragment counts at each spread, the spread itself too: what a planner has once it inlines them.
    ['{ parts { ...Two } part(id: 1) { ...Two } } fragment Two on Part { id name }', 8],
    ['{ parts { ...Two ...Two } } fragment Two on Part { id name }', 7],
    // Introspection is selected like any other field.
    ['{ __schema { types { name } } }', 3],
  ])('%s holds %d selections', (query, count) => {
    expect(operationSelections(operationOf(query))).toBe(count);
  });

  // Spread by spread, the 24-fragment chain is 3 × 2^24 selections: walked that way the test would not end.
  test("issue 35's chain of 24 fragments, each spreading the next twice, is measured at once: 3 × 2^24", () => {
    expect(operationSelections(operationOf(doublingChain(24)))).toBe(3 * 2 ** 24);
  });

  test('spreads wrapped in inline fragments (no two spreads of one fragment side by side) count the same way', () => {
    const wrapped = doublingChain(24, (next) => `... on Part { ...${next} } ... on Part { ...${next} }`);
    expect(operationSelections(operationOf(wrapped))).toBe(5 * 2 ** 24 - 2);
  });

  test('a count past what a number holds exactly stays a number: Number.MAX_SAFE_INTEGER', () => {
    expect(operationSelections(operationOf(doublingChain(1000)))).toBe(Number.MAX_SAFE_INTEGER);
  });

  test('more selections than the limit are refused with TOO_MANY_SELECTIONS (400), naming the setting', () => {
    expect(refusalOf({ maxSelections: 2000 }, doublingChain(24))).toMatchObject({
      code: 'TOO_MANY_SELECTIONS',
      message: `operation selection count (fragments spread) ${3 * 2 ** 24} exceeds the limit of 2000 (GRAPHQL_MAX_SELECTIONS)`,
      details: { limit: 2000, actual: 3 * 2 ** 24 },
    });
  });

  test('as many selections as the limit run', () => {
    expect(refusalOf({ maxSelections: 7 }, '{ parts { ...Two ...Two } } fragment Two on Part { id name }')).toBeUndefined();
    expect(refusalOf({ maxSelections: 6 }, '{ parts { ...Two ...Two } } fragment Two on Part { id name }')).toMatchObject({ details: { limit: 6, actual: 7 } });
  });
});

/**
 * Every document this project deploys, each operation with its selections: the frontend kit, the
 * REST facades' operations, the trusted documents, and the full introspection query (GraphiQL's,
 * codegen's). The largest operation holds 33, the introspection query 239.
 */
function deployedOperations(): Array<[string, number]> {
  const texts: Array<[string, string]> = [
    ...readdirSync(projectPath('examples', 'frontend', 'operations')).map((file) => [file, readFileSync(projectPath('examples', 'frontend', 'operations', file), 'utf8')] as [string, string]),
    ...['core', 'impact', 'indicators', 'records'].map((facade) => [facade, readFileSync(projectPath('rest-facade', facade, 'operations.graphql'), 'utf8')] as [string, string]),
    ...JSON.parse(readFileSync(projectPath('gateway', 'trusted-documents.json'), 'utf8')).operations.map((o: { name: string; body: string }) => [`trusted ${o.name}`, o.body]),
    ['introspection', getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true })],
  ];
  return texts.flatMap(([source, text]) => {
    const document = parse(text);
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    return operations.map(
      (operation) => [`${source}: ${operation.name?.value}`, operationSelections({ operation, fragments: fragmentsOf(document), schema: SCHEMA, variables: {} })] as [string, number],
    );
  });
}

test('every deployed operation holds less than an eighth of the default GRAPHQL_MAX_SELECTIONS', () => {
  const { maxSelections } = readSystemConfig({ AUTH_MODE: 'none', AUTH_ALLOW_INSECURE_NONE: 'true', REGISTRY_CATALOG_JSON: '[]' }).graphqlLimits;
  const operations = deployedOperations();
  expect(operations.length).toBeGreaterThan(40);
  expect(operations.filter(([, selections]) => selections * 8 > maxSelections)).toEqual([]);
});
