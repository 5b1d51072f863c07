import { pathToFileURL } from 'node:url';
import { ArtifactFetcher, type FetchPolicy } from '../../subgraphs/models/adapters/artifact-fetcher.js';
import { ArtifactHost } from '../support/artifact-host.js';
import { projectPath } from '../../kernel/project.js';

let host: ArtifactHost;
let other: ArtifactHost;

beforeAll(async () => {
  host = await new ArtifactHost().start();
  other = await new ArtifactHost().start();
  host.serve('/a.ttl', 'a');
  host.serve('/slow.ttl', { body: 'late', delayMs: 1500 });
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
  timeoutMs: 1000,
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
