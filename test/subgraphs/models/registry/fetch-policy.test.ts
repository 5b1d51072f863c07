import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ArtifactFetcher, type FetchPolicy } from '../../../../subgraphs/models/adapters/artifact-fetcher.js';
import { ArtifactHost } from '../../../support/artifact-host.js';
import { eventually } from '../../../support/load-loop.js';
import { projectPath } from '../../../../kernel/project.js';

let host: ArtifactHost;
let other: ArtifactHost;

beforeAll(async () => {
  host = await new ArtifactHost().start();
  other = await new ArtifactHost().start();
  host.serve('/a.ttl', 'a');
  host.serve('/slow.ttl', { body: 'late', delayMs: 1500 });
  host.serve('/endless.ttl', { stream: {} });
  host.serve('/declared-huge.ttl', { stream: { contentLength: 2 ** 30 } });
  host.serve('/exactly-1024.ttl', 'x'.repeat(1024));
  host.serve('/missing-location', { status: 302 });
  host.serve('/down.ttl', { status: 503, body: 'upstream detail' });
  host.serve('/bounce', { redirect: `${other.url}/b.ttl` });
  host.serve('/local-bounce', { redirect: '/a.ttl' });
  other.serve('/b.ttl', 'b');
});
afterAll(async () => {
  await host.stop();
  await other.stop();
});

const policy = (overrides: Partial<FetchPolicy> = {}): FetchPolicy => ({
  allowedHosts: [new URL(host.url).host],
  requireHttps: false,
  allowFileUrls: false,
  // The deployed default (REGISTRY_FETCH_TIMEOUT_MS): only the timeout test shortens it.
  timeoutMs: 10_000,
  maxBytes: 1024,
  ...overrides,
});

describe('artifact fetch policy', () => {
  test('fetches from an allowed host; 404 means absent', async () => {
    const fetcher = new ArtifactFetcher(policy());
    expect(await fetcher.fetch(`${host.url}/a.ttl`)).toEqual({ found: true, body: Buffer.from('a') });
    expect(await fetcher.fetch(`${host.url}/missing.ttl`)).toEqual({ found: false });
  });

  test('hosts match case-insensitively, with or without a port', async () => {
    const fetcher = new ArtifactFetcher(policy({ allowedHosts: ['127.0.0.1'] }));
    expect((await fetcher.fetch(`${host.url}/a.ttl`)).found).toBe(true);
  });

  test('refuses a host outside REGISTRY_ALLOWED_HOSTS', async () => {
    await expect(new ArtifactFetcher(policy()).fetch(`${other.url}/b.ttl`)).rejects.toThrow(/host not allowed/);
  });

  test('checks every redirect hop: an allowed host cannot bounce to a forbidden one', async () => {
    const fetcher = new ArtifactFetcher(policy());
    await expect(fetcher.fetch(`${host.url}/bounce`)).rejects.toThrow(/host not allowed/);
    expect(await fetcher.fetch(`${host.url}/local-bounce`)).toEqual({ found: true, body: Buffer.from('a') });
  });

  test('requires HTTPS unless REGISTRY_REQUIRE_HTTPS=false', async () => {
    await expect(new ArtifactFetcher(policy({ requireHttps: true })).fetch(`${host.url}/a.ttl`)).rejects.toThrow(/HTTPS is required/);
  });

  test('file: URLs only with REGISTRY_ALLOW_FILE_URLS=true', async () => {
    const file = pathToFileURL(projectPath('test', 'fixtures', 'mini-model', 'shacl.ttl')).href;
    await expect(new ArtifactFetcher(policy()).fetch(file)).rejects.toThrow(/file URLs are not allowed/);
    expect((await new ArtifactFetcher(policy({ allowFileUrls: true })).fetch(file)).found).toBe(true);
  });

  test('gives up after REGISTRY_FETCH_TIMEOUT_MS', async () => {
    await expect(new ArtifactFetcher(policy({ timeoutMs: 200 })).fetch(`${host.url}/slow.ttl`)).rejects.toThrow(/timed out/);
  });
});

describe('credentials and queries in URLs (issue: URLs shown with user:password and ?token=…)', () => {
  const withSecrets = (base: string, path: string) => `${base.replace('://', '://ops:PASS-w0rd@')}${path}?token=TOKEN-1234#frag`;

  test('user:password is sent as Basic authentication (fetch refuses such URLs), to that host only', async () => {
    const fetcher = new ArtifactFetcher(policy({ allowedHosts: null }));
    expect(await fetcher.fetch(withSecrets(host.url, '/a.ttl'))).toEqual({ found: true, body: Buffer.from('a') });
    expect(host.headers.get('/a.ttl')?.authorization).toBe(`Basic ${Buffer.from('ops:PASS-w0rd').toString('base64')}`);
    await fetcher.fetch(withSecrets(host.url, '/bounce'));
    expect(other.headers.get('/b.ttl')?.authorization).toBeUndefined();
  });

  test.each<[string, string, Partial<FetchPolicy>, RegExp]>([
    ['an HTTP error', '/down.ttl', {}, /^http:\/\/127\.0\.0\.1:\d+\/down\.ttl answered HTTP 503$/],
    ['a redirect without a location', '/missing-location', {}, /^http:\/\/127\.0\.0\.1:\d+\/missing-location redirected without a location$/],
    ['plain HTTP where HTTPS is required', '/a.ttl', { requireHttps: true }, /^HTTPS is required: http:\/\/127\.0\.0\.1:\d+\/a\.ttl \(REGISTRY_REQUIRE_HTTPS=false allows http\)$/],
    ['a body over the size cap', '/endless.ttl', {}, /^http:\/\/127\.0\.0\.1:\d+\/endless\.ttl is larger than/],
  ])('%s: the message shows the URL without them', async (_name, path, overrides, message) => {
    const failure = await new ArtifactFetcher(policy(overrides)).fetch(withSecrets(host.url, path)).catch((error: Error) => error.message);
    expect(failure).toMatch(message);
    expect(failure).not.toMatch(/ops|PASS|TOKEN|token|frag/);
  });

  test('a host that refuses connections, and a file URL where they are not allowed', async () => {
    const closed = await new ArtifactHost().start();
    await closed.stop();
    const refused = await new ArtifactFetcher(policy({ allowedHosts: null })).fetch(withSecrets(closed.url, '/x.ttl')).catch((error: Error) => error.message);
    expect(refused).toBe(`${closed.url}/x.ttl could not be fetched: network error ECONNREFUSED`);
    const file = await new ArtifactFetcher(policy()).fetch('file:///etc/catalog.json?token=TOKEN-1234').catch((error: Error) => error.message);
    expect(file).toBe('file URLs are not allowed: file:///etc/catalog.json (REGISTRY_ALLOW_FILE_URLS=true allows them)');
  });
});

describe('REGISTRY_ARTIFACT_MAX_BYTES (issue: artifact bodies have no size cap)', () => {
  const capped = () => new ArtifactFetcher(policy({ maxBytes: 1024 }));

  test('a body of exactly the cap is read whole', async () => {
    expect(await capped().fetch(`${host.url}/exactly-1024.ttl`)).toEqual({ found: true, body: Buffer.from('x'.repeat(1024)) });
  });

  test('an endless body: reading stops once past the cap, and the host sees the answer abandoned', async () => {
    await expect(capped().fetch(`${host.url}/endless.ttl`)).rejects.toThrow(`${host.url}/endless.ttl is larger than REGISTRY_ARTIFACT_MAX_BYTES (1024 bytes): reading stopped there`);
    expect(await eventually(() => host.cut.has('/endless.ttl'))).toBe(true);
  });

  test('a Content-Length over the cap is refused before the body is read', async () => {
    await expect(capped().fetch(`${host.url}/declared-huge.ttl`)).rejects.toThrow(
      `${host.url}/declared-huge.ttl is larger than REGISTRY_ARTIFACT_MAX_BYTES (1024 bytes): its Content-Length is 1073741824`,
    );
    expect(await eventually(() => host.cut.has('/declared-huge.ttl'))).toBe(true);
  });

  test('a local file over the cap (file: URL or REGISTRY_CATALOG_FILE)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fetch-cap-'));
    try {
      const file = path.join(dir, 'big.json');
      writeFileSync(file, 'x'.repeat(1025));
      const fetcher = new ArtifactFetcher(policy({ maxBytes: 1024, allowFileUrls: true }));
      await expect(fetcher.fetch(pathToFileURL(file).href)).rejects.toThrow(`${pathToFileURL(file).href} is larger than REGISTRY_ARTIFACT_MAX_BYTES (1024 bytes)`);
      await expect(fetcher.readFile(file)).rejects.toThrow(`${file} is larger than REGISTRY_ARTIFACT_MAX_BYTES (1024 bytes)`);
      expect(await fetcher.readFile(path.join(dir, 'absent.json'))).toEqual({ found: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
