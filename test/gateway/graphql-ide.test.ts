import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ConfigError } from '../../kernel/config/env.js';
import { IDE_ASSETS } from '../../gateway/ide.js';
import { readSystemConfig } from '../../server/config.js';
import { launchChromium } from '../support/chromium.js';
import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { localProfileEnv } from '../subgraphs/indicators/local-profile.js';

/**
 * GraphiQL at the gateway's `/graphql` (GRAPHQL_IDE, gateway/ide.ts): served from the installed
 * packages, so it works with no internet access; GET / and /health answer JSON; the IDE is off
 * unless asked for. The local profile turns it on (test/scripts/local-profile.test.ts).
 */

/** What the rest of a start needs, so that only GRAPHQL_IDE decides. */
const BASE_ENV = { ...NO_AUTH, REGISTRY_CATALOG_JSON: '[]' };
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('GRAPHQL_IDE is a strict boolean, off by default', () => {
  test('unset: off; true/false: as given', () => {
    expect(readSystemConfig(BASE_ENV).graphqlIde).toBe(false);
    expect(readSystemConfig({ ...BASE_ENV, GRAPHQL_IDE: 'true' }).graphqlIde).toBe(true);
    expect(readSystemConfig({ ...BASE_ENV, GRAPHQL_IDE: 'false' }).graphqlIde).toBe(false);
  });

  test('anything else stops the start naming the variable', () => {
    for (const value of ['yes', '1', 'TRUE', '']) {
      expect(() => readSystemConfig({ ...BASE_ENV, GRAPHQL_IDE: value })).toThrow(ConfigError);
      expect(() => readSystemConfig({ ...BASE_ENV, GRAPHQL_IDE: value })).toThrow(/GRAPHQL_IDE/);
    }
  });
});

describe('GRAPHQL_IDE=true', () => {
  let sut: TestSystem;
  let gateway: string;
  beforeAll(async () => {
    // The local profile's settings: its sample model, introspection on (GraphiQL's completion and docs).
    sut = await startInProcessSystem({ ...NO_AUTH, ...localProfileEnv(), GRAPHQL_INTROSPECTION: 'true', GRAPHQL_IDE: 'true' });
    gateway = sut.url('gateway');
  });
  afterAll(() => sut?.stop());

  test('GET / and GET /health answer JSON', async () => {
    const root = await call(gateway, 'GET', '/');
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/^application\/json/);
    expect(root.json).toEqual({ service: expect.any(String), graphql: '/graphql', ide: true });
    const health = await call(gateway, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });
    // A browser asking for HTML gets the same JSON, not express's "Cannot GET /".
    expect((await call(gateway, 'GET', '/', { headers: HTML })).json).toEqual(root.json);
  });

  test('unknown paths and methods answer JSON, never HTML', async () => {
    const unknown = await call(gateway, 'GET', '/nope', { headers: HTML });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
    expect(unknown.json).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'NOT_FOUND', details: null } }] });
    expect((await call(gateway, 'GET', '/ide/package.json')).status).toBe(404);
    const wrong = await call(gateway, 'POST', '/health', { body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    expect(wrong.json.errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
  });

  test("a browser's GET /graphql gets GraphiQL, every asset from this origin and the installed packages", async () => {
    const page = await call(gateway, 'GET', '/graphql', { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(page.text).toContain('GraphiQL');
    expect(page.text).toContain('apollo-require-preflight');
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBe(Object.keys(IDE_ASSETS).length + 1);
    for (const source of sources) {
      if (source.startsWith('data:')) continue;
      expect(source).toMatch(/^\/ide\//);
      const asset = await fetch(gateway + source);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(source.endsWith('.css') ? /^text\/css/ : /javascript/);
      expect(Buffer.from(await asset.arrayBuffer()).equals(readFileSync(IDE_ASSETS[source.slice('/ide/'.length)]!))).toBe(true);
    }
  });

  test('GET /graphql with a query string asking for JSON stays GraphQL over HTTP, CSRF prevention included', async () => {
    const query = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const preflighted = await call(gateway, 'GET', query, { headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } });
    expect(preflighted.status).toBe(200);
    expect(preflighted.json).toEqual({ data: { __typename: 'Query' } });
    // urql's default GET, without the header: refused, as documented (docs/DECISIONS.md, "GraphQL").
    const bare = await call(gateway, 'GET', query, { headers: { accept: 'application/json' } });
    expect(bare.status).toBe(400);
    expect(bare.text).toMatch(/Cross-Site Request Forgery/);
  });

  describe('in headless Chromium, with nothing but loopback reachable', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    }, 660_000);
    afterAll(() => browser?.close());

    test('GraphiQL opens, runs a query and shows its answer', async () => {
      const { query, field, direct } = await chooseQuery(gateway);

      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      const outside: string[] = [];
      const problems: string[] = [];
      // Anything not of this origin is recorded and refused (the browser resolves no name either).
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${gateway}/`) || url.startsWith('data:')) return route.continue();
        outside.push(url);
        return route.abort();
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
      const graphqlStatuses: number[] = [];
      page.on('response', (response) => {
        if (new URL(response.url()).pathname === '/graphql' && response.request().method() === 'POST') graphqlStatuses.push(response.status());
      });

      await page.goto(`${gateway}/graphql`);
      await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 20_000 });
      // The headers editor starts with the CSRF header (shown: defaultEditorToolsVisibility 'headers').
      expect(await editorValues(page, '.graphiql-editor-tool .CodeMirror')).toEqual(expect.arrayContaining([expect.stringContaining('"apollo-require-preflight": "true"')]));

      await page.click('.graphiql-query-editor .CodeMirror');
      await page.evaluate((text) => (globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(text), query);
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/graphql' && (response.request().postData() ?? '').includes(field));
      await page.click('.graphiql-execute-button');
      const response = await answered;
      expect(response.status()).toBe(200);
      expect(response.request().headers()['content-type']).toBe('application/json');
      await page.waitForFunction((name) => ((globalThis as any).document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue() ?? '').includes(`"${name}"`), field, {
        timeout: 10_000,
      });

      const screenshot = path.join(mkdtempSync(path.join(tmpdir(), 'graphiql-')), 'graphiql.png');
      await page.screenshot({ path: screenshot });
      process.stdout.write(`GraphiQL screenshot: ${screenshot}\n`);

      const [result] = await editorValues(page, '.graphiql-response .CodeMirror');
      expect(JSON.parse(result!)).toEqual({ data: direct.data });
      // What a person sees in the result pane, as rendered.
      const shown = await page.locator('.graphiql-response').innerText();
      expect(shown).toContain(`"${field}": ${JSON.stringify(direct.data[field], null, 2).split('\n')[0]}`);
      // The schema GraphiQL fetched for completion and docs was answered too: every POST was a 200.
      expect(graphqlStatuses.length).toBeGreaterThanOrEqual(2);
      expect(graphqlStatuses.every((status) => status === 200)).toBe(true);
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});

describe('GRAPHQL_IDE unset (the default of npm run serve)', () => {
  let sut: TestSystem;
  let gateway: string;
  beforeAll(async () => {
    sut = await startInProcessSystem(BASE_ENV);
    gateway = sut.url('gateway');
  });
  afterAll(() => sut?.stop());

  test('no IDE: a browser GET /graphql is a JSON 404 naming GRAPHQL_IDE, and no asset is served', async () => {
    const page = await call(gateway, 'GET', '/graphql', { headers: HTML });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^application\/json/);
    expect(page.json).toEqual({ errors: [{ message: expect.stringContaining('GRAPHQL_IDE=true'), extensions: { code: 'NOT_FOUND', details: null } }] });
    // Nor Apollo's landing page (Apollo Sandbox from a CDN) with a query string.
    const withQuery = await call(gateway, 'GET', `/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: HTML });
    expect(withQuery.text).not.toMatch(/apollographql|<html/i);
    for (const file of Object.keys(IDE_ASSETS)) expect((await call(gateway, 'GET', `/ide/${file}`)).status).toBe(404);
  });

  test('GET / says so; /health and GraphQL answer as usual', async () => {
    expect((await call(gateway, 'GET', '/')).json).toEqual({ service: expect.any(String), graphql: '/graphql', ide: false });
    expect((await call(gateway, 'GET', '/health')).json).toEqual({ status: 'ok' });
    const answer = await call(gateway, 'POST', '/graphql', { body: { query: '{ __typename }' } });
    expect(answer.json).toEqual({ data: { __typename: 'Query' } });
  });
});

interface IntrospectedType {
  kind: string;
  name: string | null;
  ofType: IntrospectedType | null;
}

/**
 * A real root field of the running schema, not a meta-field: one with no required argument and a
 * scalar or enum result, a count first, that answers data without errors when asked directly (the
 * schema changes; this reads it rather than assuming it). `direct` is that answer, the reference.
 */
async function chooseQuery(gateway: string): Promise<{ query: string; field: string; direct: { data: Record<string, unknown> } }> {
  const typeRef = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
  const answer = await call(gateway, 'POST', '/graphql', {
    body: { query: `{ __schema { queryType { fields { name args { type { kind } defaultValue } type { ${typeRef} } } } } }` },
  });
  const fields = answer.json.data.__schema.queryType.fields as Array<{ name: string; args: Array<{ type: { kind: string }; defaultValue: string | null }>; type: IntrospectedType }>;
  const leaf = (type: IntrospectedType): IntrospectedType => (type.ofType ? leaf(type.ofType) : type);
  const candidates = fields.filter(
    (field) => field.args.every((arg) => arg.type.kind !== 'NON_NULL' || arg.defaultValue !== null) && ['SCALAR', 'ENUM'].includes(leaf(field.type).kind) && field.type.kind !== 'LIST',
  );
  candidates.sort((a, b) => Number(/count/i.test(b.name)) - Number(/count/i.test(a.name)));
  const tried: string[] = [];
  for (const { name } of candidates) {
    const query = `{\n  ${name}\n}\n`;
    const direct = await call(gateway, 'POST', '/graphql', { body: { query } });
    if (direct.status === 200 && direct.json.errors === undefined && direct.json.data?.[name] != null) return { query, field: name, direct: direct.json };
    tried.push(`${name}: ${direct.text}`);
  }
  throw new Error(`no root field without required arguments, with a scalar result, answers among ${fields.map((f) => f.name).join(', ')}:\n${tried.join('\n')}`);
}

/** The text of each CodeMirror editor matching `selector`. */
function editorValues(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((css) => [...(globalThis as any).document.querySelectorAll(css)].map((node: any) => node.CodeMirror.getValue() as string), selector);
}
