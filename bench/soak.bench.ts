import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../kernel/project.js';
import { type Figure, percentile, round } from './figures.js';
import { LOCAL_BENCH_ENV, calculationArtifactHost, computeRequest, publishedCatalogEntry, sharedAssessment, sharedDataPresent } from './fixtures.js';
import { type ServerProcess, startServerProcess } from './processes.js';
import { createPostgresDatabase } from '../test/subgraphs/models/store/databases.js';

/**
 * Issue 8, load: the built server (its own process, PostgreSQL store) under a steady mix of
 * validate, create, query and compute for SOAK_SECONDS (600) after a warm-up. Stable means no
 * error, the last minute's p99 within 20% of the first minute's (either way), and RSS growing less
 * than 10%.
 * Takes ten minutes: run with `--only soak` (it is skipped otherwise).
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const WARM_UP_SECONDS = 30;
/** Requests per second of each kind, sent on a fixed schedule whatever the answers' pace. */
const RATE = { validate: 20, create: 10, query: 10, compute: 10 };
const RSS_SAMPLE_MS = 5000;

type Kind = keyof typeof RATE;

interface Sample {
  kind: Kind;
  /** Seconds since the measured run began (negative during the warm-up). */
  at: number;
  ms: number;
  ok: boolean;
}

interface Workload {
  env: Record<string, string>;
  /** The model version path and the bodies of each kind of request. */
  model: string;
  assessment(): Record<string, unknown>;
  compute: unknown;
  close(): void;
}

export async function benchSoak(): Promise<Figure[]> {
  const database = await createPostgresDatabase('soak');
  const workload = await soakWorkload();
  const server = await startServerProcess('soak', {
    ...LOCAL_BENCH_ENV,
    DATABASE_URL: database.url,
    ...workload.env,
  });
  try {
    const { samples, rss } = await drive(server, workload);
    return figures(samples, rss, server.rssMb(), workload);
  } finally {
    await server.stop();
    workload.close();
    await database.drop();
  }
}

/** Sends every kind at its rate from the start of the warm-up to the end of the run; samples RSS. */
async function drive(server: ServerProcess, workload: Workload): Promise<{ samples: Sample[]; rss: Array<{ at: number; mb: number }> }> {
  const samples: Sample[] = [];
  const rss: Array<{ at: number; mb: number }> = [];
  const start = performance.now() + WARM_UP_SECONDS * 1000;
  const end = start + SECONDS * 1000;
  const inFlight = new Set<Promise<void>>();
  const timers = (Object.keys(RATE) as Kind[]).map((kind) =>
    setInterval(() => {
      if (performance.now() >= end) return;
      const sent = send(server, workload, kind).then((sample) => {
        samples.push({ ...sample, at: (performance.now() - start) / 1000 });
        inFlight.delete(sent);
      });
      inFlight.add(sent);
    }, 1000 / RATE[kind]),
  );
  const sampler = setInterval(() => rss.push({ at: (performance.now() - start) / 1000, mb: server.rssMb() }), RSS_SAMPLE_MS);
  await new Promise((resolve) => setTimeout(resolve, end - performance.now()));
  timers.forEach(clearInterval);
  clearInterval(sampler);
  await Promise.all(inFlight);
  return { samples, rss };
}

async function send(server: ServerProcess, workload: Workload, kind: Kind): Promise<Omit<Sample, 'at'>> {
  const core = `http://127.0.0.1:${server.ports.core}${workload.model}`;
  const requests: Record<Kind, () => [string, unknown, Record<string, string>]> = {
    validate: () => [`${core}:validate`, { payload: workload.assessment() }, {}],
    create: () => {
      const key = randomUUID();
      return [`${core}:create`, { payload: { ...workload.assessment(), id: key } }, { 'idempotency-key': key }];
    },
    query: () => [
      `${core}:query`,
      { filter: { where: [{ field: 'payload.product_info.product_category', op: 'eq', value: 'Battery' }], sort: [{ field: 'created_at', direction: 'desc' }], limit: 20 } },
      {},
    ],
    compute: () => [`http://127.0.0.1:${server.ports.indicators}/compute`, workload.compute, {}],
  };
  const [url, body, headers] = requests[kind]();
  const started = performance.now();
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    return { kind, ms: performance.now() - started, ok: response.status === 200 };
  } catch {
    return { kind, ms: performance.now() - started, ok: false };
  }
}

function figures(samples: Sample[], rss: Array<{ at: number; mb: number }>, rssAfter: number, workload: Workload): Figure[] {
  const measured = samples.filter((s) => s.at >= 0);
  const errors = measured.filter((s) => !s.ok).length;
  const p99 = (from: number, to: number) =>
    percentile(
      measured.filter((s) => s.at >= from && s.at < to && s.ok).map((s) => s.ms),
      99,
    );
  const first = p99(0, 60);
  const last = p99(SECONDS - 60, SECONDS);
  const byKind = (Object.keys(RATE) as Kind[])
    .map((kind) => {
      const kindP99 = (from: number, to: number) =>
        round(
          percentile(
            measured.filter((s) => s.kind === kind && s.ok && s.at >= from && s.at < to).map((s) => s.ms),
            99,
          ),
          1,
        );
      return `${kind} ${kindP99(0, 60)} → ${kindP99(SECONDS - 60, SECONDS)} ms`;
    })
    .join(', ');
  const median = (values: number[]) => percentile(values, 50);
  const rssFirst = median(rss.filter((r) => r.at >= 0 && r.at < 60).map((r) => r.mb));
  const rssLast = median(rss.filter((r) => r.at >= SECONDS - 60).map((r) => r.mb));
  const mix = Object.entries(RATE)
    .map(([kind, rate]) => `${kind} ${rate}/s`)
    .join(', ');
  const what = `${SECONDS} s of ${mix} (${measured.length} requests) after ${WARM_UP_SECONDS} s of warm-up, against \`node dist/bundle/server.js\` on PostgreSQL; ${workload.model}`;
  return [
    { id: 'soak.error_rate', value: round(errors / Math.max(1, measured.length), 6), unit: 'ratio', target: 0, better: 'lower', note: `${errors} of ${measured.length} answers not 200; ${what}` },
    {
      // Stable either way: |last ÷ first − 1| ≤ 0.2, one-sided as bench-format targets are.
      id: 'soak.p99_drift',
      value: round(Math.abs(last / first - 1)),
      unit: 'ratio',
      target: 0.2,
      better: 'lower',
      note: `|p99 of the last minute ${round(last, 2)} ms ÷ first minute ${round(first, 2)} ms − 1| (last ÷ first = ${round(last / first)}), all kinds together; per kind, first → last minute: ${byKind}; ${what}`,
    },
    {
      id: 'soak.rss_growth_ratio',
      value: round((rssLast - rssFirst) / rssFirst),
      unit: 'ratio',
      target: 0.1,
      better: 'lower',
      note: `server RSS, median of the last minute ${rssLast} MB vs the first ${rssFirst} MB (samples every ${RSS_SAMPLE_MS / 1000} s); ${what}`,
    },
    { id: 'memory.rss_mb.after_soak', value: rssAfter, unit: 'MB', better: 'lower', note: `server RSS after the soak's mixed load; ${what}` },
  ];
}

/**
 * The published 0.0.4 model when ../shared/data has it (no root_class, so compute payloads validate
 * too), else the project's bundled sample; the calculation artifact from a local host.
 */
async function soakWorkload(): Promise<Workload> {
  const model = '/models/re-indicators-specification/versions/0.0.4';
  if (sharedDataPresent()) {
    const artifacts = await calculationArtifactHost();
    const assessment = sharedAssessment();
    return {
      env: { REGISTRY_CATALOG_JSON: JSON.stringify([publishedCatalogEntry()]), REGISTRY_ALLOW_FILE_URLS: 'true', ...artifacts.env },
      model,
      assessment: () => assessment,
      compute: computeRequest(),
      close: artifacts.close,
    };
  }
  const sample = projectPath('examples', 'models', 're-indicators-specification');
  const request = JSON.parse(readFileSync(`${sample}/0.0.4/example-assessment.request.json`, 'utf8')) as { payload: Record<string, unknown> };
  return {
    env: {
      REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: `${pathToFileURL(sample).href}/0.0.4/` }]),
      REGISTRY_ALLOW_FILE_URLS: 'true',
      ARTIFACT_BASE_URL_TEMPLATE: `${pathToFileURL(sample).href}/{version}/`,
    },
    model,
    assessment: () => request.payload,
    compute: request,
    close: () => undefined,
  };
}
