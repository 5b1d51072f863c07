// `npm run coverage [-- <jest arguments>]`: line and branch coverage of the production code
// (kernel/, pipeline/, database/, gateway/, rest-facade/, server/, subgraphs/; not their generated/ folders)
// over the suite `npm test` runs, counted in the jest process and in every process and worker
// thread the tests start. Prints the figures per top-level folder and writes coverage/summary.json.
//
// Two measurements of the same TypeScript sources:
// - in the jest process, jest's own (`--coverage --coverageProvider=v8`): V8's block coverage of
//   what ts-jest transpiled, mapped back to the .ts files → coverage/jest/coverage-final.json;
// - in the children (servers, cluster workers, worker threads, CLIs the tests run): V8's block
//   coverage of the built dist/*.js (the server itself as dist/bundle/'s bundle of them), which
//   every child writes because scripts/coverage-children.mjs puts NODE_V8_COVERAGE into its
//   environment (nothing else a test or child sees changes). Each file is cut to dist/'s scripts
//   while the suite runs (a process's full coverage is ~12 MB, the part under dist/ ~2 MB: the
//   bundle holds the libraries too), then c8 merges them and maps them
//   through dist's source maps, with every production file never loaded counted at zero
//   → coverage/children/coverage-final.json.
// The two are merged onto the .ts sources by scripts/coverage-merge.mjs (its header says how).
//
// The exit status is jest's: a failed test fails the run, and the figures are still written.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { PRODUCTION_FOLDERS, mergeCoverage, printSummary } from './coverage-merge.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'coverage');
const dirs = { raw: path.join(out, 'raw'), children: path.join(out, 'children-v8'), jest: path.join(out, 'jest'), childReport: path.join(out, 'children') };
const DIST_URL = pathToFileURL(path.join(root, 'dist')).href + '/';
const BUNDLE_URL = `${DIST_URL}bundle/`;
/** A coverage file younger than this may still be being written by its process. */
const SETTLE_MS = 5_000;

const started = Date.now();
const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
// What is measured: the tree as the run starts (the build and the tests it loads).
const tree = { commit: git('rev-parse', 'HEAD'), uncommittedChanges: git('status', '--porcelain', '--untracked-files=no') !== '' };
const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

rmSync(out, { recursive: true, force: true });
for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });

const kept = { files: 0, unreadable: 0 };
const pruning = setInterval(() => keepDistOnly(false), 10_000);
const jestStatus = await runJest(process.argv.slice(2));
clearInterval(pruning);
keepDistOnly(true);
console.error(`coverage: ${kept.files} child coverage files${kept.unreadable ? `, ${kept.unreadable} unreadable (left out)` : ''}`);

await reportChildren();
const summary = {
  run: {
    ...tree,
    jestArguments: process.argv.slice(2),
    jestExitCode: jestStatus,
    childCoverageFiles: kept.files,
    unreadableChildCoverageFiles: kept.unreadable,
    minutes: Number(((Date.now() - started) / 60_000).toFixed(1)),
  },
  ...mergeCoverage({
    root,
    inProcess: readJson(path.join(dirs.jest, 'coverage-final.json')),
    children: readJson(path.join(dirs.childReport, 'coverage-final.json')),
  }),
};
writeFileSync(path.join(out, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
printSummary(summary);
process.exit(jestStatus);

/** jest as `npm test` runs it, with its V8 coverage on and the children's collected. */
function runJest(args) {
  const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  const coverageArgs = ['--coverage', '--coverageProvider=v8', '--coverageReporters=json', `--coverageDirectory=${dirs.jest}`];
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(path.join(root, 'scripts', 'coverage-children.mjs')).href, '--experimental-vm-modules', jest, '--runInBand', ...coverageArgs, ...args],
    {
      cwd: root,
      env: { ...process.env, COVERAGE_CHILD_DIR: dirs.raw },
      stdio: 'inherit',
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** Moves each finished child coverage file from raw/ to children-v8/, keeping only dist/'s scripts. */
function keepDistOnly(final) {
  for (const name of readdirSync(dirs.raw)) {
    const file = path.join(dirs.raw, name);
    if (!final && Date.now() - statSync(file).mtimeMs < SETTLE_MS) continue;
    let report;
    try {
      report = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      if (!final) continue; // still being written
      kept.unreadable++;
      unlinkSync(file);
      continue;
    }
    report.result = report.result.filter((script) => script.url.startsWith(DIST_URL));
    const maps = report['source-map-cache'];
    // The bundle's maps are ~13 MB a process (its libraries' sources too): c8 reads them from beside its chunks instead.
    if (maps) report['source-map-cache'] = Object.fromEntries(Object.entries(maps).filter(([url]) => url.startsWith(DIST_URL) && !url.startsWith(BUNDLE_URL)));
    if (report.result.length > 0) {
      writeFileSync(path.join(dirs.children, name), JSON.stringify(report));
      kept.files++;
    }
    unlinkSync(file);
  }
}

/** c8: the children's coverage merged and mapped onto the .ts sources, every production file of dist/ included. */
async function reportChildren() {
  const { Report } = createRequire(import.meta.url)('c8');
  await new Report({
    tempDirectory: dirs.children,
    reportsDirectory: dirs.childReport,
    reporter: ['json'],
    // dist/bundle/: the built server as the tests start it (`npm run serve`), mapped through its chained maps onto the same .ts files.
    include: [...PRODUCTION_FOLDERS.map((folder) => `dist/${folder}/**`), 'dist/bundle/**'],
    exclude: ['dist/**/generated/**'],
    extension: ['.js'],
    excludeNodeModules: true,
    all: true,
    src: [path.join(root, 'dist')],
    resolve: '',
    mergeAsync: kept.files > 0, // c8's incremental merge, one file at a time (it fails on none)
  }).run();
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {}; // nothing measured on that side (no test ran, or jest failed before reporting)
  }
}
