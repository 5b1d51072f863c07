import { readFileSync } from 'node:fs';

/**
 * Summarises a `.cpuprofile` (V8 `--cpu-prof`): the frames with most self time, and the self time
 * per package (node_modules/<name>, node: internals, this project's files), in % of all samples.
 *   node dist/bench/cpu-profile-summary.js <file.cpuprofile> [top]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, topArg = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfCount = new Map<number, number>();
for (const id of profile.samples) selfCount.set(id, (selfCount.get(id) ?? 0) + 1);
const total = profile.samples.length;

const frames = new Map<string, number>();
const packages = new Map<string, number>();
for (const [id, count] of selfCount) {
  const { callFrame } = byId.get(id)!;
  const key = `${callFrame.functionName || '(anonymous)'} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`;
  frames.set(key, (frames.get(key) ?? 0) + count);
  const pkg = packageOf(callFrame.url, callFrame.functionName);
  packages.set(pkg, (packages.get(pkg) ?? 0) + count);
}

// Inclusive time: samples whose stack holds the frame at least once (recursion counted once).
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const inclusive = new Map<string, number>();
for (const [id, count] of selfCount) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { callFrame } = byId.get(at)!;
    if (!callFrame.url) continue;
    const key = `${callFrame.functionName || '(anonymous)'} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + count);
  }
}

const percent = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
console.log(`${total} samples\n\nself time by frame:`);
for (const [key, count] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(`${percent(count)}  ${key}`);
console.log('\ninclusive time by frame:');
for (const [key, count] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg) * 2)) console.log(`${percent(count)}  ${key}`);
console.log('\nself time by package:');
for (const [key, count] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) console.log(`${percent(count)}  ${key}`);

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url;
}

function packageOf(url: string, functionName: string): string {
  if (!url) return `(${functionName || 'native'})`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url.split('/')[0]!;
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1).split('/').slice(0, 2).join('/') : url;
}
