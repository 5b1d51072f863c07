import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { composeSubgraphs } from '../../gateway/compose.js';
import { readCommittedSupergraph } from '../../gateway/committed-supergraph.js';
import { type AllowList, type RouteOperation, type SchemaCheckInput, checkSchema, describeReport, exitCodeOf, parseAllowList, summaryLines } from '../../server/schema-check.js';
import { changeLocator, codeLine } from '../../server/schema-check/change-location.js';
import { projectPath } from '../../kernel/project.js';

/**
 * Each failure of `npm run schema:check`, made to happen on modified copies of its inputs: a small
 * two-subgraph shop instead of our graph, so that the cases do not move when our graph does.
 */
const LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable"])';

const catalog = (productFields = 'name: String!\n  legacyCode: String') => ({
  name: 'catalog',
  sdl: `${LINK}
type Query { products: [Product!]! }
type Product @key(fields: "id") {
  id: ID!
  ${productFields}
}`,
});

const reviews = (productFields = '') => ({
  name: 'reviews',
  sdl: `${LINK}
type Product @key(fields: "id") {
  id: ID!
  reviews: [Review!]!
  ${productFields}
}
type Review { stars: Int! }`,
});

const ROUTES: RouteOperation[] = [{ name: 'shop GET /products', operation: 'query Products { products { id name reviews { stars } } }' }];
const NOTHING_ALLOWED: AllowList = { breakingChanges: [] };
const REMOVAL_ALLOWED: AllowList = {
  breakingChanges: [{ type: 'FIELD_REMOVED', path: 'Product.legacyCode', reason: 'announced in the 2.0 release notes' }],
};

function supergraphOf(subgraphs: SchemaCheckInput['subgraphs']): string {
  const { supergraphSdl, errors } = composeSubgraphs(subgraphs);
  if (!supergraphSdl) throw new Error(errors.map((e) => e.code).join(', '));
  return supergraphSdl;
}

const PUBLISHED = supergraphOf([catalog(), reviews()]);
const WITHOUT_LEGACY_CODE = [catalog('name: String!'), reviews()];

async function check(input: Partial<SchemaCheckInput>) {
  const report = await checkSchema({ subgraphs: [catalog(), reviews()], committedSupergraph: PUBLISHED, routes: ROUTES, allowList: NOTHING_ALLOWED, ...input });
  return { report, exitCode: exitCodeOf(report), output: describeReport(report).join('\n') };
}

describe('schema:check on modified inputs', () => {
  test('unchanged subgraphs pass', async () => {
    const { exitCode, output } = await check({});
    expect(exitCode).toBe(0);
    expect(output).toMatch(/API changes against the baseline \(gateway\/supergraph.graphql\): 0 /);
    expect(output).toContain('supergraph: up to date');
  });

  test('a field removed from a subgraph is a breaking change (exit 1)', async () => {
    const { exitCode, report, output } = await check({ subgraphs: WITHOUT_LEGACY_CODE, committedSupergraph: supergraphOf(WITHOUT_LEGACY_CODE), baselineSupergraph: PUBLISHED });
    expect(exitCode).toBe(1);
    expect(report.changes.map((c) => [c.verdict, c.change.type, c.change.path])).toEqual([['breaking', 'FIELD_REMOVED', 'Product.legacyCode']]);
    expect(output).toContain('BREAKING FIELD_REMOVED Product.legacyCode');
    expect(report.stale).toBe(false);
  });

  test('without a baseline the committed supergraph is the baseline: the removal is breaking and the file stale', async () => {
    const { exitCode, report } = await check({ subgraphs: WITHOUT_LEGACY_CODE });
    expect(exitCode).toBe(1);
    expect(report.changes.map((c) => c.verdict)).toEqual(['breaking']);
    expect(report.stale).toBe(true);
  });

  test('an allow-listed removal passes', async () => {
    const { exitCode, report, output } = await check({
      subgraphs: WITHOUT_LEGACY_CODE,
      committedSupergraph: supergraphOf(WITHOUT_LEGACY_CODE),
      baselineSupergraph: PUBLISHED,
      allowList: REMOVAL_ALLOWED,
    });
    expect(exitCode).toBe(0);
    expect(report.changes.map((c) => c.verdict)).toEqual(['allowed']);
    expect(output).toContain('ALLOWED FIELD_REMOVED Product.legacyCode');
  });

  test('an allow-list entry that matches nothing is reported but does not fail', async () => {
    const { exitCode, output } = await check({ allowList: REMOVAL_ALLOWED });
    expect(exitCode).toBe(0);
    // One warning line, however many entries are stale (issue 23).
    expect(output.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      'warning: 1 allow-list entry matches no change, remove from gateway/schema-allow-list.json: FIELD_REMOVED Product.legacyCode',
    ]);
  });

  test('a route document using a removed field fails, even when the removal is allow-listed', async () => {
    const { exitCode, report, output } = await check({
      subgraphs: WITHOUT_LEGACY_CODE,
      committedSupergraph: supergraphOf(WITHOUT_LEGACY_CODE),
      baselineSupergraph: PUBLISHED,
      routes: [...ROUTES, { name: 'shop GET /products/legacy', operation: '{ products { legacyCode } }' }],
      allowList: REMOVAL_ALLOWED,
    });
    expect(exitCode).toBe(1);
    expect(report.routeErrors).toEqual(['shop GET /products/legacy: Cannot query field "legacyCode" on type "Product".']);
    expect(output).toContain('operations: FAILED: documents that do not validate against the new API schema\n  shop GET /products/legacy: ');
  });

  test('a route document that does not parse fails', async () => {
    const { exitCode, report } = await check({ routes: [{ name: 'shop GET /broken', operation: '{ products { id ' }] });
    expect(exitCode).toBe(1);
    expect(report.routeErrors).toEqual([expect.stringMatching(/^shop GET \/broken: Syntax Error/)]);
  });

  test('subgraphs that do not compose fail with exit 2 and the composition error codes', async () => {
    const { exitCode, report, output } = await check({ subgraphs: [catalog(), reviews('name: String!')] });
    expect(exitCode).toBe(2);
    expect(report.compositionErrors.map((e) => e.code)).toEqual(['INVALID_FIELD_SHARING']);
    expect(output).toMatch(/^composition of catalog, reviews: FAILED by @apollo\/composition\n {2}INVALID_FIELD_SHARING: /);
  });

  test("a shareable field described otherwise in one subgraph: The Guild's composition describes it otherwise than Apollo's (exit 1)", async () => {
    const hours = (name: string, description: string) => ({ name, sdl: `${LINK}\ntype Query { "${description}" openingHours: String @shareable }` });
    const subgraphs = [hours('aisles', 'When the aisles open'), hours('stores', 'Opening hours'), hours('tills', 'Opening hours')];
    const { exitCode, output } = await check({ subgraphs, committedSupergraph: supergraphOf(subgraphs), routes: [] });
    expect(exitCode).toBe(1);
    expect(output.split('\n').slice(0, 2)).toEqual([
      'composition of aisles, stores, tills: ok by @apollo/composition and @theguild/federation-composition, but @theguild/federation-composition gives another API schema than @apollo/composition: FAILED',
      "  Field 'Query.openingHours' description changed from 'Opening hours' to 'When the aisles open'",
    ]);
  });

  test('a committed supergraph that is not the new composition is stale: run npm run compose', async () => {
    const added = [catalog(), reviews('averageStars: Float')];
    const { exitCode, report, output } = await check({ subgraphs: added });
    expect(exitCode).toBe(1);
    expect(report.changes.map((c) => [c.verdict, c.change.type, c.change.path])).toEqual([['safe', 'FIELD_ADDED', 'Product.averageStars']]);
    expect(output).toContain('supergraph: STALE');
    expect(output).toContain('run `npm run compose`');
  });

  test('the allow-list file needs a type, a path and a reason for every entry', () => {
    expect(parseAllowList('{"breakingChanges": []}')).toEqual(NOTHING_ALLOWED);
    expect(() => parseAllowList('{"breakingChanges": [{"type": "FIELD_REMOVED", "path": "Product.legacyCode"}]}')).toThrow(/reason/);
    expect(() => parseAllowList('{}')).toThrow(/breakingChanges/);
    expect(() => parseAllowList('{"breakingChanges": [null]}')).toThrow(/breakingChanges/);
  });
});

describe('what a passing check names, and where a change is declared', () => {
  const NO_USAGE = {
    usage: { format: 'cerise-usage-export' as const, version: 1 as const, from: '2000-01-01', exportedAt: '2000-01-01T00:00:00Z', operations: [], counts: [] },
    source: 'no traffic',
    days: 30,
  };

  test('the passing line names up to three breaking changes let through as unused, then how many more', async () => {
    const published = supergraphOf([catalog('name: String!\n  legacyCode: String\n  sku: String\n  color: String\n  size: String'), reviews()]);
    const { exitCode, report } = await check({ subgraphs: WITHOUT_LEGACY_CODE, committedSupergraph: supergraphOf(WITHOUT_LEGACY_CODE), baselineSupergraph: published, usage: NO_USAGE });
    expect(exitCode).toBe(0);
    expect(summaryLines(report)).toEqual([expect.stringMatching(/\(4 breaking but unused, 0 allow-listed\), .*; let through as unused: (Product\.\w+, ){3}and 1 more$/)]);
    const one = await check({ subgraphs: WITHOUT_LEGACY_CODE, committedSupergraph: supergraphOf(WITHOUT_LEGACY_CODE), baselineSupergraph: PUBLISHED, usage: NO_USAGE });
    expect(summaryLines(one.report)).toEqual([expect.stringMatching(/; let through as unused: Product\.legacyCode$/)]);
  });

  test("a change in a given SDL file is at its field's line there, else its type's", async () => {
    const sources = [{ subgraph: 'catalog', sdlFile: 'proposed/catalog.graphql' }];
    const { report } = await check({ subgraphs: [catalog('name: Int!\n  legacyCode: String'), reviews()], sources });
    expect(report.changes.map((c) => [c.change.path, c.location])).toEqual([['Product.name', { file: 'proposed/catalog.graphql', line: 5 }]]);
    const locate = changeLocator([catalog(), reviews()], sources);
    expect([locate('Product.legacyCode'), locate('Product.gone'), locate('Product'), locate('Gone.field')]).toEqual([
      { file: 'proposed/catalog.graphql', line: 6 },
      { file: 'proposed/catalog.graphql', line: 3 },
      { file: 'proposed/catalog.graphql', line: 3 },
      undefined,
    ]);
    // A subgraph that is in the code: its TypeScript, found by codeLine.
    expect(changeLocator([catalog(), reviews()], [{ subgraph: 'reviews', code: [] }])('Review.stars')).toBeUndefined();
  });

  test("in the code, a field's declaration: under @Field or @FieldResolver of its type, under @Query for Query's", () => {
    const types = {
      path: 'subgraphs/shop/graphql/types.ts',
      text: [
        "@ObjectType('Product', { description: 'A product' })", // 1
        'export class ProductGql {',
        "  @Field({ description: 'Its name' }) name!: string;",
        '  @Field(() => String, {',
        '    description: "A decorator option is not a member",', // 5
        '  })',
        '  description!: string;',
        '}',
        'registerEnumType(ColorGql, {',
        "  name: 'Color',", // 10
        '});',
      ].join('\n'),
    };
    const resolver = {
      path: 'subgraphs/shop/graphql/product-resolver.ts',
      text: [
        '@Resolver(() => ProductGql)', // 1
        'export class ProductResolver {',
        "  @Query(() => [ProductGql], { description: 'Every product' })",
        '  products(): ProductGql[] {',
        '    return [];', // 5
        '  }',
        '  @FieldResolver(() => [ReviewGql])',
        '  async reviews(@Root() product: ProductGql): Promise<ReviewGql[]> {',
        '    return [];',
        '  }', // 10
        '}',
      ].join('\n'),
    };
    const files = [types, resolver];
    const at = (file: { path: string }, line: number) => ({ file: file.path, line });
    expect(codeLine(files, 'Product', 'name')).toEqual(at(types, 3));
    expect(codeLine(files, 'Product', 'description')).toEqual(at(types, 7));
    expect(codeLine(files, 'Product', 'reviews')).toEqual(at(resolver, 8));
    expect(codeLine(files, 'Query', 'products')).toEqual(at(resolver, 4));
    expect(codeLine(files, 'Product', 'gone')).toEqual(at(types, 1));
    expect(codeLine(files, 'Color', 'RED')).toEqual(at(types, 9));
    expect(codeLine(files, 'Query', 'reviews')).toBeUndefined();
    expect(codeLine(files, 'Review', 'stars')).toBeUndefined();
  });
});

describe('schema:check on this repository', () => {
  // `npm test` builds first; run alone, these tests need `npm run build`.
  const built = projectPath('dist', 'server', 'schema-check.js');
  const run = (...args: string[]) => promisify(execFile)(process.execPath, [built, ...args], { cwd: projectPath() });

  test('the real command passes on the real tree (exit 0), quietly: one summary line', async () => {
    expect(existsSync(built)).toBe(true);
    const { stdout } = await run();
    expect(stdout).toMatch(
      /^schema:check: ok: 0 API changes against \S+ \(0 breaking but unused, 0 allow-listed\), \d+ operations valid, no usage seen \(no source\), the same API composed by @apollo\/composition and @theguild\/federation-composition\n$/,
    );
  });

  test('against a baseline copy that still has a field the code no longer has: exit 1', async () => {
    const committed = await readCommittedSupergraph();
    const published = committed.replace(/^(\s+modelVersionCount: Int! @join__field\(graph: MODELS\))$/m, '$1\n  retiredCount: Int @join__field(graph: MODELS)');
    expect(published).not.toBe(committed);
    const dir = mkdtempSync(path.join(tmpdir(), 'schema-check-'));
    try {
      writeFileSync(path.join(dir, 'base.graphql'), published);
      const failure = await run('--baseline', path.join(dir, 'base.graphql')).then(
        () => null,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stdout).toContain('BREAKING FIELD_REMOVED Query.retiredCount');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
