import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectPath } from '../../kernel/project.js';
import { readUsage } from '../../server/schema-check/sources.js';
import { eventually } from '../support/load-loop.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';

/**
 * Issue 35, row 4: the usage export after many documents with large literals, and many large
 * operations, is paged, each page within the request budget (REQUEST_MAX_RESPONSE_BYTES, the setting
 * this test is about, lowered to 256 KiB so that the operations below need several pages), and
 * every operation and count is reachable by following the pages, as `schema:check --usage-url`
 * does. Before, one answer held every operation's text whole: 465 MB after 500 documents with
 * 900 KB literals. USAGE_FLUSH_SECS is 1: flushing is what the test waits on.
 */
const SAMPLE = pathToFileURL(projectPath('examples', 'models', 're-indicators-specification', '0.0.4')).href;
const BUDGET = 256 * 1024;
const LITERAL_DOCUMENTS = 8;
const LARGE_DOCUMENTS = 30;

function schemaCheck(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY'].includes(k)));
    execFile(process.execPath, [projectPath('dist', 'server', 'schema-check.js'), ...args], { cwd: projectPath(), env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

interface Page {
  operations: Array<{ hash: string; name: string | null; body: string }>;
  counts: Array<{ hash: string; client: string; count: number }>;
  next: string | null;
}

describe('the usage export of a gateway that ran large documents', () => {
  let sut: TestSystem;

  beforeAll(async () => {
    sut = await startInProcessSystem({
      ...NO_AUTH,
      REGISTRY_CATALOG_JSON: JSON.stringify([{ model: 're-indicators-specification', version: '0.0.4', base_url: SAMPLE }]),
      REGISTRY_ALLOW_FILE_URLS: 'true',
      USAGE_FLUSH_SECS: '1',
      REQUEST_MAX_RESPONSE_BYTES: String(BUDGET),
    });
    const send = async (query: string) => {
      const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query }, headers: { 'graphql-client-name': 'bulk' } });
      expect(answer.status).toBe(200);
    };
    // 900 KB literals: a signature keeps none of them.
    for (let i = 0; i < LITERAL_DOCUMENTS; i++) await send(`query Literal${i} { record(id: "${String(i).repeat(900_000)}") { id } }`);
    // Operations whose signatures are large themselves (a 20,000-character operation name each): 600 KB in all.
    for (let i = 0; i < LARGE_DOCUMENTS; i++) await send(`query Large${i}_${'x'.repeat(20_000)} { modelVersionCount }`);
    const all = await eventually(async () => {
      const usage = await readUsage({ usageUrl: sut.url('gateway'), days: 1 });
      return usage!.usage.counts.filter((c) => c.client === 'bulk').reduce((sum, c) => sum + c.count, 0) === LITERAL_DOCUMENTS + LARGE_DOCUMENTS;
    });
    expect(all).toBe(true);
  });
  afterAll(() => sut?.stop());

  const page = async (query: string) => {
    const answer = await call(sut.url('gateway'), 'GET', `/admin/usage?days=1${query}`);
    expect(answer.status).toBe(200);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(BUDGET);
    return answer.json as Page;
  };

  /** Every page from the first, following `next`. */
  const walk = async (query = '') => {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const got: Page = await page(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages.push(got);
      cursor = got.next;
    } while (cursor && pages.length < 1000);
    return pages;
  };

  const bulk = (pages: Page[]) => {
    const counts = pages.flatMap((p) => p.counts).filter((c) => c.client === 'bulk');
    const hashes = new Set(counts.map((c) => c.hash));
    const operations = new Map(pages.flatMap((p) => p.operations).map((o) => [o.hash, o]));
    return { requests: counts.reduce((sum, c) => sum + c.count, 0), hashes, operations };
  };

  test('no page is larger than the request budget, and the pages hold every operation and count once', async () => {
    const pages = await walk();
    expect(pages.length).toBeGreaterThan(1);
    const { requests, hashes, operations } = bulk(pages);
    expect(requests).toBe(LITERAL_DOCUMENTS + LARGE_DOCUMENTS);
    expect(hashes.size).toBe(LITERAL_DOCUMENTS + LARGE_DOCUMENTS);
    // Every count's operation is on its page.
    for (const p of pages) for (const c of p.counts) expect(p.operations.some((o) => o.hash === c.hash)).toBe(true);
    for (const hash of hashes) expect(operations.get(hash)).toBeDefined();
    // Literals are gone: the 900 KB documents are short signatures.
    for (const operation of operations.values()) if (operation.name?.startsWith('Literal')) expect(operation.body.length).toBeLessThan(100);
  });

  test('a page of a given size, walked to the end, reaches the same; a bad cursor or limit is 400', async () => {
    const pages = await walk('&limit=7');
    expect(pages.every((p) => p.counts.length <= 7)).toBe(true);
    const { requests, hashes } = bulk(pages);
    expect({ requests, operations: hashes.size }).toEqual({ requests: LITERAL_DOCUMENTS + LARGE_DOCUMENTS, operations: LITERAL_DOCUMENTS + LARGE_DOCUMENTS });
    for (const query of ['&limit=0', '&limit=100001', '&limit=x', '&cursor=not-a-cursor', `&cursor=${'A'.repeat(5000)}`]) {
      const refused = await call(sut.url('gateway'), 'GET', `/admin/usage?days=1${query}`);
      expect(refused.status).toBe(400);
      expect(refused.json.errors[0].extensions.code).toBe('BAD_REQUEST');
    }
  });

  test('the fields view is paged within the budget too', async () => {
    let cursor: string | null = null;
    const coordinates: string[] = [];
    let pages = 0;
    do {
      const answer = await call(sut.url('gateway'), 'GET', `/admin/usage/fields?days=1&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.status).toBe(200);
      expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(BUDGET);
      coordinates.push(...answer.json.fields.map((f: { coordinate: string }) => f.coordinate));
      cursor = answer.json.next;
      pages += 1;
    } while (cursor && pages < 1000);
    expect(pages).toBeGreaterThan(1);
    expect(coordinates).toEqual([...new Set(coordinates)].sort());
    expect(coordinates).toEqual(expect.arrayContaining(['Query.modelVersionCount', 'Query.record', 'Query.record.id!']));
  });

  test('schema:check --save-usage writes every page as one file; a file of one page of several is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'usage-pages-'));
    try {
      const whole = path.join(dir, 'usage.json');
      const saved = await schemaCheck(['--usage-url', sut.url('gateway'), '--days', '1', '--save-usage', whole]);
      expect(saved).toEqual({ code: 0, stderr: '', stdout: expect.stringMatching(/^schema:check: saved \d+ operations and \d+ counts since /) });
      const usage = JSON.parse(readFileSync(whole, 'utf8')) as Page;
      expect(usage.next).toBeNull();
      expect(usage.counts.filter((c) => c.client === 'bulk').reduce((sum, c) => sum + c.count, 0)).toBe(LITERAL_DOCUMENTS + LARGE_DOCUMENTS);

      const partial = path.join(dir, 'page.json');
      writeFileSync(partial, (await call(sut.url('gateway'), 'GET', '/admin/usage?days=1&limit=2')).text);
      const refused = await schemaCheck(['--usage-file', partial, '--days', '1']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('one page of several (save the whole window with --save-usage)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("schema:check's --usage-url reader follows the pages", async () => {
    const read = await readUsage({ usageUrl: sut.url('gateway'), days: 1 });
    const counts = read!.usage.counts.filter((c) => c.client === 'bulk');
    expect(counts.reduce((sum, c) => sum + c.count, 0)).toBe(LITERAL_DOCUMENTS + LARGE_DOCUMENTS);
    expect(new Set(read!.usage.operations.map((o) => o.hash)).size).toBe(read!.usage.operations.length);
    for (const c of counts) expect(read!.usage.operations.some((o) => o.hash === c.hash)).toBe(true);
  });
});
