import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BrightwayProjectReader } from '../subgraphs/impact/adapters/brightway-project.js';
import { ImpactService } from '../subgraphs/impact/domain/impact-service.js';
import { type Figure, percentile, round } from './figures.js';
import { startBenchSystem } from './fixtures.js';
import { BIG_PROJECT_ACTIVITIES, bigProject, writeBrightwayProject } from '../test/support/brightway-fixture.js';

const WARMUP_CALLS = 20;
const MEASURED_CALLS = 200;

/**
 * `GET /capabilities` over HTTP on a generated 200,000-activity project (`impact.capabilities_200k.p50_ms`,
 * the figure bench-format.md defines, target 20 ms), and `capabilities()` at the domain level (no HTTP)
 * on the same project under its own id. With `number` in databases.json nothing read per call grows
 * with the database; the last figure shows what counting in SQLite costs when bw2data recorded no count.
 */
export async function benchImpact(): Promise<Figure[]> {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'impact-bench-'));
  try {
    const recorded = writeBrightwayProject(workspace, bigProject(true));
    const counted = writeBrightwayProject(workspace, bigProject(false));
    return [
      {
        // bench-format.md: "`/capabilities`, 200,000 activities in SQLite", target 20 ms: the HTTP figure.
        id: 'impact.capabilities_200k.p50_ms',
        value: await httpCapabilitiesP50(recorded),
        unit: 'ms',
        target: 20,
        better: 'lower',
        note: `GET /capabilities through impact facade → gateway → impact subgraph, sequential, p50 over ${MEASURED_CALLS} calls, ${BIG_PROJECT_ACTIVITIES} activities in SQLite, counts recorded in databases.json`,
      },
      {
        id: 'impact.capabilities_200k.domain_p50_ms',
        value: await capabilitiesP50(recorded),
        unit: 'ms',
        better: 'lower',
        note: `domain-level capabilities() p50 (no HTTP) over ${MEASURED_CALLS} calls, ${BIG_PROJECT_ACTIVITIES} activities, counts recorded in databases.json (no SQL)`,
      },
      {
        id: 'impact.capabilities_200k_counted.p50_ms',
        value: await capabilitiesP50(counted),
        unit: 'ms',
        better: 'lower',
        note: `same project without "number": every call counts ${BIG_PROJECT_ACTIVITIES} activities in SQLite (read-only)`,
      },
    ];
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function httpCapabilitiesP50(directory: string): Promise<number> {
  const system = await startBenchSystem({ BACKGROUND_PROJECT_DIR: directory });
  try {
    const url = `http://127.0.0.1:${system.ports.impact}/capabilities`;
    return await p50Of(async () => {
      const response = await fetch(url);
      if (response.status !== 200) throw new Error(`/capabilities answered ${response.status}`);
      await response.arrayBuffer();
    });
  } finally {
    await system.stop();
  }
}

async function capabilitiesP50(directory: string): Promise<number> {
  const service = new ImpactService({ backgroundProjectDir: directory, coreBaseUrl: 'http://127.0.0.1:8080' }, new BrightwayProjectReader(directory));
  return p50Of(() => service.capabilities());
}

async function p50Of(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP_CALLS; i++) await call();
  const durations: number[] = [];
  for (let i = 0; i < MEASURED_CALLS; i++) {
    const start = performance.now();
    await call();
    durations.push(performance.now() - start);
  }
  return round(percentile(durations, 50));
}
