import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { call } from './system.js';

/**
 * Issue 35, row 2: many clients at once asking for answers just under REQUEST_MAX_RESPONSE_BYTES
 * (32 MiB): 35 records of 900 KB payloads, each answer 31.5 MB. What test/reliability and the bench
 * (`graphql.concurrent_large_answers`) both send and how they tell the outcomes apart.
 */
export const LARGE_RECORDS = 35;
export const LARGE_PAYLOAD_CHARS = 900_000;
export const LARGE_PAGE_QUERY = `{ records(first: ${LARGE_RECORDS}) { nodes { id payload } } }`;

/**
 * Stores the large records through the records facade, a few at a time, under the model `big`. Each
 * on a connection of its own: storing them can take a worker past WORKER_MAX_RSS_MB, and a pooled
 * connection to a worker that drains may be closed just as it is reused.
 */
export async function seedLargeRecords(records: string, count = LARGE_RECORDS): Promise<void> {
  const blob = 'x'.repeat(LARGE_PAYLOAD_CHARS);
  for (let n = 0; n < count; n += 5) {
    const batch = Array.from({ length: Math.min(5, count - n) }, (_, i) =>
      call(records, 'POST', '/records', { body: { id: randomUUID(), model: 'big', version: '1', payload: { n: n + i, blob } }, headers: { 'idempotency-key': randomUUID(), connection: 'close' } }),
    );
    for (const answer of await Promise.all(batch)) if (answer.status !== 200) throw new Error(`storing a large record answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
}

/**
 * What a client got: a complete answer (its status and the records it holds), a refusal in its
 * door's envelope (status, code, Retry-After), or a failure: the connection cut, or a body that is
 * not the JSON its headers promised (truncated).
 */
export type LargeAnswerOutcome =
  { kind: 'complete'; status: number; records: number } | { kind: 'refused'; status: number; code: string | undefined; retryAfter: string | undefined } | { kind: 'failed'; reason: string };

/** One request of many at once: where it goes, its JSON body, and where its answer holds the records (null: a refusal's envelope). */
export interface LargeRequest {
  path: string;
  body: unknown;
  records(json: any): unknown[] | undefined;
  code(json: any): string | undefined;
}

/** `/graphql`'s page of large payloads; refusals are `errors[0].extensions.code`. */
export const LARGE_GRAPHQL_PAGE: LargeRequest = {
  path: '/graphql',
  body: { query: LARGE_PAGE_QUERY },
  records: (json) => json?.data?.records?.nodes,
  code: (json) => json?.errors?.[0]?.extensions?.code,
};

/** The records facade's `POST /records/query` of the same page; refusals are its `{code, message, details}`. */
export const LARGE_RECORDS_QUERY: LargeRequest = {
  path: '/records/query',
  body: { filter: { where: [{ field: 'model', op: 'eq', value: 'big' }], limit: LARGE_RECORDS } },
  records: (json) => json?.records,
  code: (json) => json?.code,
};

/** `count` clients at once, each on a connection of its own (the primary hands them to the workers in turn). */
export function concurrentLargeAnswers(base: string, count: number, request: LargeRequest = LARGE_GRAPHQL_PAGE): Promise<LargeAnswerOutcome[]> {
  return Promise.all(Array.from({ length: count }, () => largeAnswer(base, request)));
}

function largeAnswer(base: string, request: LargeRequest): Promise<LargeAnswerOutcome> {
  const body = Buffer.from(JSON.stringify(request.body));
  return new Promise((resolve) => {
    const req = httpRequest(
      `${base}${request.path}`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(body.length), connection: 'close' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'failed', reason: error.code ?? error.message }));
        response.on('aborted', () => resolve({ kind: 'failed', reason: 'aborted' }));
        response.on('end', () => resolve(outcomeOf(request, response.statusCode ?? 0, response.headers['retry-after'], Buffer.concat(chunks))));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'failed', reason: error.code ?? error.message }));
    req.end(body);
  });
}

/** What a client read: a complete answer, a refusal in the envelope, or a body that is not JSON (cut short). */
export function outcomeOf(request: LargeRequest, status: number, retryAfter: string | string[] | undefined, body: Buffer): LargeAnswerOutcome {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { kind: 'failed', reason: `status ${status} with ${body.length} bytes that are not JSON (truncated)` };
  }
  const records = request.records(json);
  if (status === 200 && records) return { kind: 'complete', status, records: records.length };
  return { kind: 'refused', status, code: request.code(json), retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined };
}

/**
 * The replica's resident memory, sampled until stopped: the primary and whatever it runs (its
 * workers, replacements included), summed at each sample. Resolves with the largest sum, in bytes.
 */
export function sampleReplicaRss(primaryPid: number, everyMs = 20): { stop(): Promise<number> } {
  let sampling = true;
  let peak = 0;
  const done = (async () => {
    while (sampling) {
      peak = Math.max(
        peak,
        [primaryPid, ...childrenOf(primaryPid)].reduce((sum, pid) => sum + rssBytes(pid), 0),
      );
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      sampling = false;
      await done;
      return peak;
    },
  };
}

/** The children of a process, from each of its threads' /proc list (cheap enough to read every few milliseconds, where `ps` is a process each time). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return []; // gone
  }
}

/** A process's resident set from /proc, 0 once it is gone. */
function rssBytes(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
