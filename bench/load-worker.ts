import autocannon from 'autocannon';
import type { LoadJob as Job } from './load.js';

/**
 * The load generator, run as its own process by `load()` (bench/load.ts): the server under test
 * then has its event loop (and, on two cores, a core) to itself, and its p50 is not the load
 * generator's. Reads one JSON job on stdin, prints one JSON result on stdout.
 *
 * Latencies are the per-response times autocannon emits (fractional milliseconds from
 * process.hrtime), so p50/p99 are not rounded to whole milliseconds as in autocannon's histogram:
 * a 3 ms vs 4 ms p50 would otherwise be read as a 1.33x ratio whatever the true values.
 */

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Job;
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = { url: job.url, method: job.method, connections: job.connections, duration: job.seconds, headers: job.headers, body: job.body, ...perRequest(job) };
    const instance = autocannon(options, (error, finished) => (error ? reject(error) : resolve(finished)));
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => (latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil((p / 100) * latencies.length) - 1))]!);
  process.stdout.write(
    JSON.stringify({
      p50: at(50),
      p99: at(99),
      rps: latencies.length / elapsed,
      requests: latencies.length,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
    }),
  );
}

/**
 * With `bodies`, request n (one counter shared by every connection) sends body n mod length; with
 * `unique`, every request gets its own value in place of the placeholder (in the body chosen).
 */
function perRequest(job: Job): Pick<autocannon.Options, 'requests'> {
  const placeholder = job.unique;
  const bodies = job.bodies;
  if (placeholder === undefined && bodies === undefined) return {};
  if (bodies !== undefined && bodies.length === 0) throw new Error('bodies: at least one');
  let sent = 0;
  const fill = (text: string, value: string) => (placeholder === undefined ? text : text.split(placeholder).join(value));
  return {
    requests: [
      {
        setupRequest: (request) => {
          const body = bodies === undefined ? job.body : bodies[sent % bodies.length];
          const value = `${process.pid}-${++sent}`;
          const headers = placeholder === undefined ? job.headers : Object.fromEntries(Object.entries(job.headers).map(([name, text]) => [name, fill(text, value)]));
          return { ...request, headers, body: body === undefined ? undefined : fill(body, value) };
        },
      },
    ],
  };
}

await main();
