import { existsSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { projectPath } from '../kernel/project.js';

/** This checkout's files as profiles name them (`file:///…/`): shown from the project's root. */
const PROJECT_URL = `${pathToFileURL(projectPath()).href}/`;

/** A V8 CPU profile (`.cpuprofile`, the format `--cpu-prof` writes). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number }; children?: number[] }>;
  samples: number[];
}

/** Shares of the samples, in %, highest first, as `[frame or package, share]`. */
export type Shares = Array<[string, number]>;

export interface ProfileSummary {
  samples: number;
  /** Self time by frame (`name file:line`). */
  self: Shares;
  /** Inclusive time by frame: samples whose stack holds the frame (recursion counted once). */
  inclusive: Shares;
  /** Self time by package (node_modules/<name>, node: internals, this project's folders). */
  packages: Shares;
}

/**
 * Profiles this process while `work` runs, with the sampling profiler `--cpu-prof` uses, started
 * through the inspector so that start-up and warm-up stay out of it.
 */
export async function profileWhile<T>(work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    return { result, profile: profile as unknown as CpuProfile };
  } finally {
    session.disconnect();
  }
}

/**
 * The profile with each frame of a bundled file (dist/bundle/, whose source maps chain through tsc's
 * onto the .ts files) named by the source it came from: its URL and line. A frame of a file without
 * a map, or at a place the map does not name, stays as it is. The server runs the bundle, where
 * every module of the project shares one file: without this, a profile cannot tell them apart.
 */
export function inSources(profile: CpuProfile): CpuProfile {
  const maps = new Map<string, TraceMap | null>();
  const mapOf = (url: string): TraceMap | null => {
    if (!maps.has(url)) {
      const file = url.startsWith('file:') ? `${fileURLToPath(url)}.map` : '';
      maps.set(url, file && existsSync(file) ? new TraceMap(readFileSync(file, 'utf8'), url) : null);
    }
    return maps.get(url)!;
  };
  const nodes = profile.nodes.map((node) => {
    const { url, lineNumber, columnNumber } = node.callFrame;
    const map = url.includes('/dist/bundle/') ? mapOf(url) : null;
    const original = map && originalPositionFor(map, { line: lineNumber + 1, column: columnNumber ?? 0 });
    if (!original?.source || original.line === null) return node;
    return { ...node, callFrame: { ...node.callFrame, url: pathToFileURL(fileURLToPath(new URL(original.source, url))).href, lineNumber: original.line - 1 } };
  });
  return { ...profile, nodes };
}

export function summarise(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfCount = new Map<number, number>();
  for (const id of profile.samples) selfCount.set(id, (selfCount.get(id) ?? 0) + 1);
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const packages = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, count: number) => map.set(key, (map.get(key) ?? 0) + count);
  for (const [id, count] of selfCount) {
    const { callFrame } = byId.get(id)!;
    add(self, frameName(callFrame), count);
    add(packages, packageOf(callFrame.url, callFrame.functionName), count);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const key = frameName(frame);
      if (!frame.url || seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, count);
    }
  }
  const total = profile.samples.length;
  const shares = (map: Map<string, number>): Shares => [...map].map(([key, count]): [string, number] => [key, (100 * count) / total]).sort((a, b) => b[1] - a[1]);
  return { samples: total, self: shares(self), inclusive: shares(inclusive), packages: shares(packages) };
}

function frameName(callFrame: CpuProfile['nodes'][number]['callFrame']): string {
  return `${callFrame.functionName || '(anonymous)'} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`;
}

export function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.startsWith(PROJECT_URL) ? url.slice(PROJECT_URL.length) : url;
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
  if (dist >= 0)
    return url
      .slice(dist + 1)
      .split('/')
      .slice(0, 2)
      .join('/');
  return url.startsWith(PROJECT_URL) ? url.slice(PROJECT_URL.length).split('/')[0]! : url;
}
