import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/project.js';

/**
 * Issue 14: the layering of docs/ARCHITECTURE.md, as a test that fails on a forbidden import. Every
 * TypeScript file of the production tree is read and each of its imports (static, dynamic, type-only)
 * checked against the rules below.
 */
interface Rule {
  /** Which files the rule is about (paths relative to the project root). */
  files: RegExp;
  /** What they must not import: a package name or a project path (relative to the root, no extension). */
  forbidden: RegExp;
  why: string;
}

const DOMAIN = /^subgraphs\/[^/]+\/domain\//;

const RULES: Rule[] = [
  {
    files: DOMAIN,
    forbidden:
      /^(graphql|type-graphql|@apollo\/|express|@as-integrations\/|node:https?|node:http2|undici|pg|@prisma\/|libsql|@libsql\/|prisma\/|subgraphs\/[^/]+\/(graphql|adapters|store)\/|gateway\/|rest-facade\/|server\/|kernel\/(config|graphql|http|identity)\/)/,
    why: 'a domain knows nothing of GraphQL, HTTP, Prisma or the environment: ports are defined in the domain, adapters implement them',
  },
  { files: /^gateway\//, forbidden: /^(rest-facade|server)\//, why: 'the facades use the gateway, never the other way round' },
  {
    files: /^gateway\//,
    forbidden: /^subgraphs\/(?!(index|names)$)/,
    why: "the gateway reaches a subgraph through the graph; only the subgraphs' index (their schemas, for composition) and names are its to read",
  },
  {
    files: /^database\//,
    forbidden: /^(gateway|pipeline|rest-facade|subgraphs|server)\//,
    why: 'the records database serves the records store, usage and the registry alike, and knows none of them',
  },
  {
    files: /^(?!database\/|subgraphs\/impact\/adapters\/brightway-project\.ts$)/,
    forbidden: /^(pg|@libsql\/client|libsql)$/,
    why: "the records database's drivers are database/'s (one module opens, migrates and notifies); the Brightway project is a read-only SQLite file of its own",
  },
  { files: /^rest-facade\//, forbidden: /^(subgraphs|server)\//, why: 'a facade reaches the domains only through the graph' },
  { files: /^pipeline\//, forbidden: /^(gateway|rest-facade|subgraphs|server)\//, why: 'the request pipeline serves every door (the gateway, the facades, a subgraph port) and knows none of them' },
  { files: /^server\/subgraph-server\.ts$/, forbidden: /^(gateway|rest-facade)\//, why: 'a subgraph process runs its door on the request pipeline and needs no gateway code' },
  { files: /^kernel\//, forbidden: /^(gateway|pipeline|rest-facade|subgraphs|server)\//, why: 'the kernel is shared by everything and depends on nothing of the project' },
  { files: /^subgraphs\//, forbidden: /^(gateway|rest-facade|server)\//, why: 'a subgraph is reached through the gateway and knows neither it nor the facades' },
  {
    files: /^(?!subgraphs\/models\/store\/(open-store|sql-record-store)\.ts$)/,
    forbidden: /^(@prisma\/|prisma\/)/,
    why: "Prisma is the records store adapter's driver (open-store.ts, sql-record-store.ts; docs/STORE.md), nobody else's",
  },
  {
    files: /^subgraphs\/models\/store\/(query-translator|keyset|sql\/)/,
    forbidden: /^(@prisma\/|prisma\/|pg$|libsql|@libsql\/)/,
    why: 'the SQL layer writes every statement of the records store; the adapter runs them',
  },
];

const PRODUCTION = ['kernel', 'pipeline', 'database', 'subgraphs', 'gateway', 'rest-facade', 'server'];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(PROJECT_ROOT, dir)).flatMap((name) => {
    const relative = path.posix.join(dir, name);
    if (statSync(path.join(PROJECT_ROOT, relative)).isDirectory()) return name === 'generated' ? [] : sourceFiles(relative);
    return relative.endsWith('.ts') ? [relative] : [];
  });
}

/** Every module specifier a file imports, a project path made relative to the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)].map(
    (match) => match[1] ?? match[2] ?? match[3]!,
  );
  return specifiers.map((specifier) => (specifier.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '') : specifier));
}

const violations = PRODUCTION.flatMap(sourceFiles).flatMap((file) =>
  RULES.filter((rule) => rule.files.test(file)).flatMap((rule) =>
    importsOf(file)
      .filter((target) => rule.forbidden.test(target))
      .map((target) => `${file} imports ${target}: ${rule.why}`),
  ),
);

test('no production module imports across the layers', () => {
  expect(violations).toEqual([]);
});

test('the rules see imports (a check that checks nothing would pass)', () => {
  expect(importsOf('gateway/apollo-gateway.ts')).toContain('@apollo/gateway');
  expect(importsOf('gateway/gateway.ts')).toContain('gateway/executor/inflight-sharing');
  expect(RULES[0]!.forbidden.test('kernel/config/env')).toBe(true);
  expect(RULES[1]!.forbidden.test('rest-facade/facade')).toBe(true);
});

/**
 * Where the environment is read: server/main.ts hands it to readSystemConfig, and nothing else reads
 * it; `npm run schema:check` (server/schema-check.ts) is a command of its own (DATABASE_URL,
 * SCHEMA_CHECK_TOKEN, GitHub Actions' variables).
 */
const ENV_READERS = new Set(['server/main.ts', 'server/schema-check.ts', 'server/schema-publish.ts']);

test('no production module past the configuration layer reads the environment', () => {
  const readers = PRODUCTION.flatMap(sourceFiles).filter((file) => /\bprocess\.env\b(?!\.APOLLO_TELEMETRY_DISABLED\s*=)/.test(readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
  expect(readers.filter((file) => !ENV_READERS.has(file))).toEqual([]);
  expect(readers).toContain('server/main.ts');
});

/**
 * Where DATABASE_URL's form is read: database/location.ts says which database a URL names, once;
 * everything else asks it (a `kind`), so that a third database, or a new URL form, changes one file.
 */
test('only database/location.ts tells a PostgreSQL URL from an SQLite one', () => {
  const branching = PRODUCTION.flatMap(sourceFiles).filter((file) =>
    /postgres\(ql\)|\^postgres|databaseUrl\.startsWith|url\.startsWith\('file:'\)/.test(readFileSync(path.join(PROJECT_ROOT, file), 'utf8')),
  );
  expect(branching.filter((file) => file !== 'subgraphs/indicators/adapters/calculation-artifact-source.ts')).toEqual(['database/location.ts']);
});
