import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { projectPath } from '../../kernel/project.js';
import { type CoverageMap, mergeCoverage } from '../../scripts/coverage-merge.mjs';

/**
 * `npm run coverage` (scripts/coverage.mjs): the children's side reaches a child whose environment
 * a test builds from scratch and changes nothing else it sees; the merge of the jest process's and
 * the children's coverage counts a line or a branch once, covered when either side ran it, over
 * the lines tsc emits code for.
 */
let root: string;
beforeEach(() => (root = mkdtempSync(path.join(tmpdir(), 'coverage-test-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

test('every child gets NODE_V8_COVERAGE and nothing else: a spawn from scratch, sync or not; a child that names its own directory keeps it', () => {
  const probe = `['-p', 'JSON.stringify(Object.entries(process.env).filter(([k]) => k !== "PATH"))']`;
  const script = `
    import { execFile, execFileSync } from 'node:child_process';
    import { promisify } from 'node:util';
    const scratch = (extra = {}) => ({ env: { PATH: process.env.PATH, ...extra }, encoding: 'utf8' });
    console.log(JSON.stringify({
      self: [process.env.NODE_V8_COVERAGE, process.env.COVERAGE_CHILD_DIR ?? null],
      sync: JSON.parse(execFileSync(process.execPath, ${probe}, scratch())),
      async: JSON.parse((await promisify(execFile)(process.execPath, ${probe}, scratch())).stdout),
      own: JSON.parse(execFileSync(process.execPath, ${probe}, scratch({ NODE_V8_COVERAGE: '/elsewhere' }))),
    }));`;
  const preload = pathToFileURL(projectPath('scripts', 'coverage-children.mjs')).href;
  const output = execFileSync(process.execPath, ['--import', preload, '--input-type=module', '-e', script], { env: { PATH: process.env.PATH, COVERAGE_CHILD_DIR: root }, encoding: 'utf8' });
  expect(JSON.parse(output)).toEqual({
    self: [root, null],
    sync: [['NODE_V8_COVERAGE', root]],
    async: [['NODE_V8_COVERAGE', root]],
    own: [['NODE_V8_COVERAGE', '/elsewhere']],
  });
});

// kernel/sample.ts: tsc emits code for lines 4–9 only (1–3 are a type).
const SAMPLE = ['export interface Shape {', '  size: number;', '}', 'export function pick(flag: boolean): string {', '  if (flag) {', "    return 'yes';", '  }', "  return 'no';", '}', ''].join('\n');

function writeSource(file: string, source: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  mkdirSync(path.dirname(path.join(root, 'dist', file)), { recursive: true });
  writeFileSync(path.join(root, file), source);
  const { sourceMapText } = ts.transpileModule(source, { fileName: path.basename(file), compilerOptions: { sourceMap: true, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  writeFileSync(path.join(root, 'dist', file.replace(/\.ts$/, '.js.map')), sourceMapText!);
}

type Place = [line: number, column: number];
/** One side's coverage of a file as v8-to-istanbul writes it: every line a statement, each V8 range a one-location branch. */
function side(file: string, lines: number[], blocks: Array<[Place, Place, number]>, functions: Array<[Place, Place, number]> = []): CoverageMap {
  const loc = ([start, end]: [Place, Place]) => ({ start: { line: start[0], column: start[1] }, end: { line: end[0], column: end[1] } });
  return {
    [path.join(root, file)]: {
      path: path.join(root, file),
      statementMap: Object.fromEntries(
        lines.map((_, i) => [
          i,
          loc([
            [i + 1, 0],
            [i + 1, 40],
          ]),
        ]),
      ),
      s: Object.fromEntries(lines.map((count, i) => [i, count])),
      branchMap: Object.fromEntries(blocks.map(([start, end], i) => [i, { type: 'branch', line: start[0], loc: loc([start, end]), locations: [loc([start, end])] }])),
      b: Object.fromEntries(blocks.map(([, , count], i) => [i, [count]])),
      fnMap: Object.fromEntries(functions.map(([start, end], i) => [i, { name: `f${i}`, decl: loc([start, end]), loc: loc([start, end]), line: start[0] }])),
      f: Object.fromEntries(functions.map(([, , count], i) => [i, count])),
    },
  };
}

test('a line counts when tsc emits code for it, and is covered when either side ran it; a file nobody loaded counts its lines at zero and no branch; generated code does not count', () => {
  writeSource('kernel/sample.ts', SAMPLE);
  writeSource('kernel/unloaded.ts', SAMPLE);
  writeSource('rest-facade/generated/client.ts', SAMPLE);
  // In-process: `flag` never true (lines 6–7 not run). Children: always true (line 8 not run).
  const inProcess = side('kernel/sample.ts', [1, 1, 1, 1, 1, 0, 0, 1, 1, 1], []);
  const children = side('kernel/sample.ts', [1, 1, 1, 1, 1, 1, 1, 0, 1, 1], []);
  // c8's stand-in for a file no child loaded: every line at zero, one range over the whole file (from its first line with code).
  const unloaded = side('kernel/unloaded.ts', Array(10).fill(0), [[[4, 0], [10, 0], 0]], [[[4, 0], [10, 0], 0]]);
  (Object.values(unloaded)[0] as { fnMap: Record<string, { name: string }> }).fnMap[0]!.name = '(empty-report)';

  const summary = mergeCoverage({ root, inProcess, children: { ...children, ...unloaded } });

  expect(summary.files['kernel/sample.ts']!.lines).toEqual({ covered: 6, total: 6, pct: 100, inProcess: 4, children: 5 });
  expect(summary.files['kernel/unloaded.ts']).toEqual({
    lines: { covered: 0, total: 6, pct: 0, inProcess: 0, children: 0 },
    branches: { covered: 0, total: 0, pct: 100, inProcess: 0, children: 0 },
  });
  expect(Object.keys(summary.files)).toEqual(['kernel/sample.ts', 'kernel/unloaded.ts']);
  expect(summary.folders.kernel!.lines).toMatchObject({ covered: 6, total: 12, pct: 50 });
  expect(summary.total.lines).toMatchObject({ covered: 6, total: 12, pct: 50 });
});

test('a branch is counted once by where it starts, covered by the side that lists it or by the range around it that the other side ran (V8 leaves out a block that ran as often as its function)', () => {
  writeSource('kernel/sample.ts', SAMPLE);
  const fn: [Place, Place] = [
    [4, 0],
    [9, 1],
  ];
  const ifBlock: [Place, Place] = [
    [5, 12],
    [7, 3],
  ];
  const rest: [Place, Place] = [
    [8, 2],
    [9, 0],
  ];
  const lines = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1];
  // In-process: the if-block never ran (listed at 0), the rest ran as often as the function (left out).
  // Children: the if-block ran every time (left out), the rest never (listed at 0).
  const inProcess = side('kernel/sample.ts', lines, [
    [...fn, 3],
    [...ifBlock, 0],
  ]);
  const children = side('kernel/sample.ts', lines, [
    [...fn, 5],
    [...rest, 0],
  ]);
  expect(mergeCoverage({ root, inProcess, children }).files['kernel/sample.ts']!.branches).toEqual({ covered: 3, total: 3, pct: 100, inProcess: 2, children: 2 });

  // Neither side ran the if-block: listed at 0 on one side; the other never called the function (listed as a function, with no block range).
  const neither = side('kernel/sample.ts', [1, 1, 1, 0, 0, 0, 0, 0, 0, 1], [], [[...fn, 0]]);
  expect(mergeCoverage({ root, inProcess, children: neither }).files['kernel/sample.ts']!.branches).toEqual({ covered: 1, total: 2, pct: 50, inProcess: 1, children: 0 });
});

test("a branch on a line with other code takes the count of the side's function around it, not the line's", () => {
  writeSource('kernel/one-line.ts', "export const pick = (flag: boolean): string => (flag ? 'yes' : 'no');\n");
  const fn: [Place, Place] = [
    [1, 20],
    [1, 68],
  ];
  // In-process: called, never with a false flag. Children: loaded, never called: the line ran (the module's code), the function did not.
  const inProcess = side(
    'kernel/one-line.ts',
    [1, 1],
    [
      [...fn, 2],
      [[1, 62], [1, 66], 0],
    ],
  );
  const children = side('kernel/one-line.ts', [1, 1], [], [[...fn, 0]]);
  expect(mergeCoverage({ root, inProcess, children }).files['kernel/one-line.ts']!.branches).toEqual({ covered: 1, total: 2, pct: 50, inProcess: 1, children: 0 });
});
