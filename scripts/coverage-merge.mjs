// The merge of scripts/coverage.mjs: two istanbul coverage maps of the same .ts sources, one from
// the jest process (ts-jest's output, V8 coverage mapped by jest) and one from the child processes
// (dist/'s output, V8 coverage mapped by c8), each made by v8-to-istanbul. Their statement and
// branch maps differ for the same file (two compilations, and V8 leaves out a block that ran as
// often as the block around it, so which blocks are listed depends on what ran), so they are not
// merged map by map (istanbul's merge would count one branch twice or take one side's counts for
// the other's ranges). Instead, per .ts file:
//
// - Lines: the lines tsc emits code for (those that dist/<file>.js.map maps to: no blank, comment
//   or type-only line). A line is covered when either side counts it run (v8-to-istanbul counts a
//   line run unless a range that was never run spans all of it).
// - Branches: V8's block ranges (each function body, each branch of an if, ?:, ||, ??, catch, …;
//   c8's and jest's meaning), identified by where they start in the .ts source (line, column) and
//   kept when that line has code. The set is the union of both sides' ranges. A range is covered
//   when either side ran it: a side that lists a range at that place gives its count; a side that
//   does not gives the count of its innermost block or function around that place (the block it
//   was merged into, or a function it never called), or for module-level code its count of the
//   line; 0 when that side never loaded the file.
//
// A file no side loaded counts its lines at zero and no branch (as a function never called adds
// no block range); the per-folder and total figures are sums over files. `node
// scripts/coverage-merge.mjs` merges coverage/'s two maps again, without running tests, into
// coverage/summary.json.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TraceMap, eachMapping } from '@jridgewell/trace-mapping';

export const PRODUCTION_FOLDERS = ['kernel', 'pipeline', 'database', 'gateway', 'rest-facade', 'server', 'subgraphs'];

/** { total, folders: { kernel: … }, files: { 'kernel/errors.ts': … } }, each with lines and branches (covered, total, pct) and what each side alone covered. */
export function mergeCoverage({ root, inProcess, children }) {
  const jestSide = byRelativePath(root, inProcess);
  const childSide = byRelativePath(root, children);
  const files = {};
  for (const file of productionSources(root)) {
    const codeLines = emittedLines(root, file);
    if (codeLines.size === 0) continue; // types only: nothing runs
    files[file] = fileFigures(codeLines, [jestSide.get(file), childSide.get(file)]);
  }
  const folders = Object.fromEntries(PRODUCTION_FOLDERS.map((folder) => [folder, sum(Object.entries(files).filter(([file]) => file.startsWith(`${folder}/`)))]));
  return { total: sum(Object.entries(files)), folders, files };
}

export function printSummary(summary) {
  const cell = (figure) => `${figure.pct.toFixed(2).padStart(6)}% ${`${figure.covered}/${figure.total}`.padStart(12)}`;
  const row = (name, figures) => `${name.padEnd(12)} ${cell(figures.lines)}   ${cell(figures.branches)}`;
  const sides = (figure) => `in-process alone ${percent(figure.inProcess, figure.total).toFixed(2)}%, children alone ${percent(figure.children, figure.total).toFixed(2)}%`;
  console.log(
    [
      '',
      'Coverage of production code (jest process and child processes merged; scripts/coverage-merge.mjs)',
      `${'folder'.padEnd(12)} ${'lines'.padEnd(20)}   branches`,
      ...Object.entries(summary.folders).map(([folder, figures]) => row(folder, figures)),
      row('all', summary.total),
      `lines: ${sides(summary.total.lines)}; branches: ${sides(summary.total.branches)}`,
      '',
    ].join('\n'),
  );
}

/** Every production .ts file, relative to the root, in the order of the folders. */
function productionSources(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'generated' && entry.name !== 'node_modules') walk(relative);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(relative);
    }
  };
  for (const folder of PRODUCTION_FOLDERS) if (existsSync(path.join(root, folder))) walk(folder);
  return found.sort();
}

/** The .ts lines tsc emits code for, from the build's source map (1-based). */
function emittedLines(root, file) {
  const map = path.join(root, 'dist', file.replace(/\.ts$/, '.js.map'));
  if (!existsSync(map)) throw new Error(`${map} is missing: run npm run build`);
  const lines = new Set();
  eachMapping(new TraceMap(readFileSync(map, 'utf8')), (mapping) => {
    if (mapping.originalLine !== null) lines.add(mapping.originalLine);
  });
  return lines;
}

/** An istanbul coverage map, keyed by path relative to the root, as { lines: Map(line → count), ranges: [{ start, end, count }] }. */
function byRelativePath(root, coverageMap) {
  const sides = new Map();
  for (const [file, data] of Object.entries(coverageMap)) {
    // c8's stand-in for a file no child loaded (`all`): nothing ran, and its one whole-file range is no block of the code.
    if (Object.values(data.fnMap).some((fn) => fn.name === '(empty-report)')) continue;
    const lines = new Map();
    for (const [id, statement] of Object.entries(data.statementMap)) {
      const line = statement.start.line;
      lines.set(line, Math.max(lines.get(line) ?? 0, data.s[id]));
    }
    const ranges = Object.entries(data.branchMap).map(([id, branch]) => ({ start: branch.loc.start, end: branch.loc.end, count: Math.max(...data.b[id]) }));
    // A function never called in a side is no block range of it (V8 lists no blocks inside), only a function.
    const functions = Object.entries(data.fnMap).map(([id, fn]) => ({ start: fn.loc.start, end: fn.loc.end, count: data.f[id] }));
    sides.set(path.relative(root, file).split(path.sep).join('/'), { lines, ranges, enclosing: [...ranges, ...functions] });
  }
  return sides;
}

function fileFigures(codeLines, sides) {
  const lineCovered = (side, line) => (side?.lines.get(line) ?? 0) > 0;
  const lineCovers = sides.map((side) => [...codeLines].filter((line) => lineCovered(side, line)).length);
  const lines = { covered: [...codeLines].filter((line) => sides.some((side) => lineCovered(side, line))).length, total: codeLines.size };

  const places = new Map();
  for (const side of sides) for (const range of side?.ranges ?? []) if (codeLines.has(range.start.line)) places.set(`${range.start.line}:${range.start.column}`, range.start);
  const rangeCovered = (side, place) => countAt(side, place) > 0;
  const rangeCovers = sides.map((side) => [...places.values()].filter((place) => rangeCovered(side, place)).length);
  const branches = { covered: [...places.values()].filter((place) => sides.some((side) => rangeCovered(side, place))).length, total: places.size };

  return {
    lines: { ...lines, pct: percent(lines.covered, lines.total), inProcess: lineCovers[0], children: lineCovers[1] },
    branches: { ...branches, pct: percent(branches.covered, branches.total), inProcess: rangeCovers[0], children: rangeCovers[1] },
  };
}

/**
 * One side's count at a place of the source: its block range starting there, else its innermost
 * block or function around it, else (module-level code: the module's own range is not listed)
 * that side's count of the line; 0 when the side never loaded the file.
 */
function countAt(side, place) {
  if (!side) return 0;
  const innermost = (candidates) => candidates.sort((a, b) => compare(b.start, a.start) || compare(a.end, b.end))[0];
  const exact = side.ranges.filter((range) => compare(range.start, place) === 0);
  const around = exact.length > 0 ? innermost(exact) : innermost(side.enclosing.filter((range) => compare(range.start, place) <= 0 && compare(place, range.end) < 0));
  return around ? around.count : (side.lines.get(place.line) ?? 0);
}

function compare(a, b) {
  return a.line - b.line || a.column - b.column;
}

function sum(entries) {
  const add = (kind) => {
    const figure = { covered: 0, total: 0, inProcess: 0, children: 0 };
    for (const [, figures] of entries) for (const key of Object.keys(figure)) figure[key] += figures[kind][key];
    return { covered: figure.covered, total: figure.total, pct: percent(figure.covered, figure.total), inProcess: figure.inProcess, children: figure.children };
  };
  return { lines: add('lines'), branches: add('branches') };
}

function percent(part, whole) {
  return whole === 0 ? 100 : Number(((100 * part) / whole).toFixed(2));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const read = (file) => (existsSync(path.join(root, 'coverage', file)) ? JSON.parse(readFileSync(path.join(root, 'coverage', file), 'utf8')) : {});
  const summary = { run: read('summary.json').run, ...mergeCoverage({ root, inProcess: read('jest/coverage-final.json'), children: read('children/coverage-final.json') }) };
  writeFileSync(path.join(root, 'coverage', 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
  printSummary(summary);
}
