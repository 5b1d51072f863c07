// The server as `npm run serve` runs it: dist/bundle/server.js, esbuild's bundle of tsc's
// dist/server/main.js with the libraries it imports, after `tsc` builds. A start of the unbundled
// build spends most of its CPU in Node's module loader (resolving, reading and compiling ~2,000
// files in each worker); the bundle is a few dozen files (bench/PROFILE.md, "A start's CPU").
// Split at the dynamic imports, so a primary that only supervises its workers loads none of the
// system. Skipped when neither an input nor this script is newer than the bundle.
//
// Left out of the bundle, loaded from node_modules at run time: native addons (libsql, the Hive
// planner's), what is only resolved for its files on disk (GraphiQL, Swagger UI) and optional
// peers the code never installs (class-validator, pg-native), and @apollo/utils.createhash: bundled,
// its `module.require` is gone and it hashes every operation with sha.js's JavaScript SHA-256 instead
// of node:crypto (1.4 % of an identical request's CPU, bench/PROFILE.md). The source maps chain through tsc's,
// so a mapped stack trace or the children's coverage (scripts/coverage.mjs) names the .ts files.
// esbuild's own install script is not run (package.json, allowScripts): its API finds its binary in
// the @esbuild/<platform> package npm installs beside it.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'bundle');
const inputsFile = path.join(outdir, 'inputs.json');

if (upToDate()) process.exit(0);
const result = await build({
  absWorkingDir: root,
  // The artifact preparer starts its worker thread from the script beside its own module: here, beside the bundle's chunks.
  entryPoints: { server: 'dist/server/main.js', 'prepare-worker': 'dist/subgraphs/models/adapters/prepare-worker.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['libsql', '@libsql/*', '@graphql-hive/router-query-planner', 'graphiql', 'swagger-ui-dist', 'class-validator', 'pg-native', '@apollo/utils.createhash'],
  // The CommonJS libraries inside an ES module still call require (for Node's own modules).
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});
writeFileSync(inputsFile, JSON.stringify(Object.keys(result.metafile.inputs)));

function upToDate() {
  if (!existsSync(inputsFile)) return false;
  const built = statSync(inputsFile).mtimeMs;
  const inputs = [path.relative(root, fileURLToPath(import.meta.url)), ...JSON.parse(readFileSync(inputsFile, 'utf8'))];
  return inputs.every((input) => existsSync(path.join(root, input)) && statSync(path.join(root, input)).mtimeMs < built);
}
