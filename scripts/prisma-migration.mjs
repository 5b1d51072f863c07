/**
 * Writes the next migration of the records store from prisma/schema.prisma (docs/STORE.md):
 *
 *   node scripts/prisma-migration.mjs <name>     one new migration per provider whose schema changed
 *   node scripts/prisma-migration.mjs --check    exit 1 when schema.prisma has changes without one
 *
 * Offline and without a database: the Prisma schema engine (WebAssembly) diffs the provider schema
 * saved with the newest migration against the current one. Each migration directory holds the SQL
 * the store applies (migration.sql) and that schema snapshot (schema.prisma), the next diff's base.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR, PROJECT_ROOT, PROVIDERS, diffSchemas, latestSnapshot, providerSchema } from './prisma-schemas.mjs';

const argument = process.argv[2] ?? '';
const pending = await pendingChanges();

if (argument === '--check') {
  for (const { provider } of pending) console.error(`prisma/schema.prisma has ${provider} changes without a migration`);
  process.exit(pending.length === 0 ? 0 : 1);
}
if (!/^[a-z0-9_]+$/.test(argument)) {
  console.error('usage: node scripts/prisma-migration.mjs <name: lower-case letters, digits, _> | --check');
  process.exit(2);
}
if (pending.length === 0) console.log('no schema change: no migration written');

const name = `${utcStamp(new Date())}_${argument}`;
for (const { provider, schema, sql } of pending) {
  const dir = path.join(MIGRATIONS_DIR, provider, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'migration.sql'), sql);
  writeFileSync(path.join(dir, 'schema.prisma'), schema);
  console.log(`wrote ${path.relative(PROJECT_ROOT, dir)}`);
}

async function pendingChanges() {
  const changes = [];
  for (const provider of PROVIDERS) {
    const schema = providerSchema(provider);
    const sql = await diffSchemas(provider, latestSnapshot(provider), schema);
    if (sql !== '') changes.push({ provider, schema, sql });
  }
  return changes;
}

/** 20250131093000: sorts like the migration order. */
function utcStamp(date) {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
