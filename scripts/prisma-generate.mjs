/**
 * postinstall: one Prisma client per provider from prisma/schema.prisma, with no network.
 *   PostgreSQL: prisma/schema.prisma          → prisma/generated/postgresql/
 *   SQLite:     prisma/generated/sqlite.prisma → prisma/generated/sqlite/   (derived, see prisma-schemas.mjs)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { GENERATED_DIR, PROJECT_ROOT, SCHEMA_PATH, providerSchema } from './prisma-schemas.mjs';

const prismaCli = resolvePrismaCli();
if (prismaCli === null) {
  // `npm ci --omit=dev`: the CLI is a dev dependency; such an install takes its clients from a build.
  console.warn('prisma-generate: the prisma CLI is not installed, no client generated');
  process.exit(0);
}

mkdirSync(GENERATED_DIR, { recursive: true });
const sqliteSchemaPath = path.join(GENERATED_DIR, 'sqlite.prisma');
writeFileSync(sqliteSchemaPath, providerSchema('sqlite'));

for (const schemaPath of [SCHEMA_PATH, sqliteSchemaPath]) generate(schemaPath);

function generate(schemaPath) {
  const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schemaPath], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      // `generate` never runs the schema engine, yet the CLI first resolves its binary and would
      // download it (the engine host is unreachable offline); any existing file satisfies it.
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
      // No update check over the network.
      CHECKPOINT_DISABLE: '1',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
  });
  if (result.status !== 0) {
    console.error(`prisma-generate: prisma generate failed for ${path.relative(PROJECT_ROOT, schemaPath)}`);
    process.exit(result.status ?? 1);
  }
}

function resolvePrismaCli() {
  try {
    const packageJson = createRequire(import.meta.url).resolve('prisma/package.json');
    return path.join(path.dirname(packageJson), 'build', 'index.js');
  } catch {
    return null;
  }
}
