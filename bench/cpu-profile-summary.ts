import { readFileSync } from 'node:fs';
import { type CpuProfile, type Shares, inSources, summarise } from './cpu-profile.js';

/**
 * Summarises a `.cpuprofile` (V8 `--cpu-prof`): the frames with most self time, most inclusive
 * time, and the self time per package, in % of all samples; the bundled server's frames named by
 * their source files (`inSources`).
 *   node dist/bench/cpu-profile-summary.js <file.cpuprofile> [top]
 */
const [file, topArg = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary <file.cpuprofile> [top]');
const top = Number(topArg);
const summary = summarise(inSources(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile));
const print = (title: string, shares: Shares, count: number) => {
  console.log(`\n${title}:`);
  for (const [key, share] of shares.slice(0, count)) console.log(`${share.toFixed(1).padStart(5)}%  ${key}`);
};
console.log(`${summary.samples} samples`);
print('self time by frame', summary.self, top);
print('inclusive time by frame', summary.inclusive, top * 2);
print('self time by package', summary.packages, top);
