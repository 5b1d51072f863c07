/**
 * What the Prisma scripts and the store's schema tests share: where the schema and the migrations
 * live, how each provider's copy of prisma/schema.prisma is derived, and an offline Prisma schema
 * engine (the WebAssembly build, @prisma/schema-engine-wasm) that turns schema changes into SQL.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_PATH = path.join(PROJECT_ROOT, 'prisma', 'schema.prisma');
export const GENERATED_DIR = path.join(PROJECT_ROOT, 'prisma', 'generated');
export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'prisma', 'migrations');
export const PROVIDERS = /** @type {const} */ (['postgresql', 'sqlite']);

const POSTGRESQL_ONLY = '// postgresql only';
const SQLITE_ONLY = /^(\s*)\/\/ ?(.*?)\s*\/\/ sqlite only\s*$/;

/**
 * prisma/schema.prisma as the given provider reads it. The file is written for PostgreSQL; SQLite
 * has no native-type attributes (`@db.…`) and no index types, so those go, with every line marked
 * `// postgresql only`. A line SQLite says its own way (a default written in SQL) is there as a
 * comment marked `// sqlite only`, which PostgreSQL skips and SQLite reads uncommented. The SQLite
 * copy is written to prisma/generated/, hence its client output.
 */
export function providerSchema(provider, source = readFileSync(SCHEMA_PATH, 'utf8')) {
  if (provider === 'postgresql') return source;
  const kept = source
    .split('\n')
    .filter((line) => !line.trimEnd().endsWith(POSTGRESQL_ONLY))
    .map((line) => line.replace(SQLITE_ONLY, '$1$2'));
  return ['// Derived from ../schema.prisma by scripts/prisma-generate.mjs: edit that file, not this one.', ...kept]
    .join('\n')
    .replace(/(provider\s*=\s*)"postgresql"/, '$1"sqlite"')
    .replace(/ @db\.\w+(\([^)]*\))?/g, '')
    .replace(/(output\s*=\s*)"\.\/generated\/postgresql"/, '$1"./sqlite"');
}

/** The migration directories of a provider, oldest first (names start with a UTC timestamp). */
export function migrationNames(provider) {
  const dir = path.join(MIGRATIONS_DIR, provider);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The provider schema saved with the newest migration: what the migrations produce so far. */
export function latestSnapshot(provider) {
  const newest = migrationNames(provider).at(-1);
  return newest === undefined ? null : readFileSync(path.join(MIGRATIONS_DIR, provider, newest, 'schema.prisma'), 'utf8');
}

/**
 * The SQL that turns a database shaped by `fromSchema` (null: an empty database) into one shaped by
 * `toSchema`, for `provider`. Empty string when nothing changes.
 */
export async function diffSchemas(provider, fromSchema, toSchema) {
  const engine = await openSchemaEngine(provider, toSchema);
  try {
    const target = (content) => (content === null ? { tag: 'empty' } : { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content }] });
    const { stdout } = await engine.diff({
      from: target(fromSchema),
      to: target(toSchema),
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return isEmptyScript(stdout ?? '') ? '' : stdout;
  } finally {
    engine.free();
  }
}

/** The engine writes only comments (`-- This is an empty migration.`) when nothing changes. */
function isEmptyScript(sql) {
  return sql.split('\n').every((line) => line.trim() === '' || line.trim().startsWith('--'));
}

async function openSchemaEngine(provider, schema) {
  const { SchemaEngine } = await loadSchemaEngineWasm();
  const { bindMigrationAwareSqlAdapterFactory } = await import('@prisma/driver-adapter-utils');
  const adapter = bindMigrationAwareSqlAdapterFactory(offlineAdapterFactory(provider));
  return SchemaEngine.new({ datamodels: [['schema.prisma', schema]] }, () => {}, adapter);
}

let wasmModule;

/** The package's own entry imports the .wasm as an ES module (a flag in Node 20): instantiate it by hand. */
function loadSchemaEngineWasm() {
  wasmModule ??= (async () => {
    const require = createRequire(import.meta.url);
    const bindingsPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(path.join(path.dirname(bindingsPath), 'schema_engine_bg.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bindings });
    bindings.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
    return bindings;
  })();
  return wasmModule;
}

/**
 * Diffs between two schema files need no database, but on start the engine asks a PostgreSQL server
 * for its version. This stand-in answers that one question (as PostgreSQL 15, the version the
 * tests run on) and refuses everything else, so migrations are written with no server at all.
 */
function offlineAdapterFactory(provider) {
  const adapterProvider = provider === 'postgresql' ? 'postgres' : 'sqlite';
  const refuse = () => Promise.reject(new Error('the offline schema engine has no database'));
  const adapter = {
    provider: adapterProvider,
    adapterName: 'offline-schema-engine',
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    queryRaw: (query) => (query.sql.includes('server_version_num') ? Promise.resolve(POSTGRESQL_15) : refuse()),
    executeRaw: refuse,
    executeScript: refuse,
    startTransaction: refuse,
    dispose: () => Promise.resolve(),
  };
  return {
    provider: adapterProvider,
    adapterName: 'offline-schema-engine',
    connect: () => Promise.resolve(adapter),
    connectToShadowDb: () => Promise.resolve(adapter),
  };
}

/** Answer to `SELECT EXISTS(… pg_namespace …), version(), current_setting('server_version_num')`. */
const POSTGRESQL_15 = {
  columnNames: ['exists', 'version', 'numeric_version'],
  columnTypes: [5 /* Boolean */, 7 /* Text */, 0 /* Int32 */],
  rows: [[true, 'PostgreSQL 15', 150000]],
};
