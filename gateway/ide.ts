import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Request, type Router } from 'express';
import { DomainError } from '../kernel/errors.js';
import { graphqlRefusal } from '../kernel/http/graphql-body.js';

/**
 * GraphiQL at `GET /graphql` for a browser (`GRAPHQL_IDE=true`; on in the local profile), served
 * entirely from the installed packages, so the page works with no internet access: `graphiql`'s own
 * prebuilt browser bundle (UMD) and CSS, and the React 18 UMD builds it runs on (React 19 ships no
 * browser build, and graphiql's bundle reads React 18's internals). Apollo's landing page, which
 * loads Apollo Sandbox from a CDN, is disabled either way (graphql-endpoint.ts).
 */
const resolve = createRequire(import.meta.url).resolve;
const packageDirectory = (name: string) => path.dirname(resolve(`${name}/package.json`));

/** The only files the page loads, by the name it asks for them under IDE_ASSETS_PATH. */
export const IDE_ASSETS: Readonly<Record<string, string>> = {
  'graphiql.min.css': path.join(packageDirectory('graphiql'), 'graphiql.min.css'),
  'graphiql.min.js': path.join(packageDirectory('graphiql'), 'graphiql.min.js'),
  'react.production.min.js': path.join(packageDirectory('react'), 'umd', 'react.production.min.js'),
  'react-dom.production.min.js': path.join(packageDirectory('react-dom'), 'umd', 'react-dom.production.min.js'),
};
export const IDE_ASSETS_PATH = '/ide';
for (const [name, file] of Object.entries(IDE_ASSETS)) {
  if (!existsSync(file)) throw new Error(`GraphiQL asset ${name} is missing (${file}): reinstall the dependencies (npm ci)`);
}

/**
 * The header GraphiQL's headers editor starts with. The page's own requests are `content-type:
 * application/json` POSTs, which Apollo Server's CSRF prevention lets through anyway; the header is
 * there for whoever copies a request into a GET client (docs/DECISIONS.md, "GraphQL").
 */
export const IDE_DEFAULT_HEADERS = { 'apollo-require-preflight': 'true' };

const DEFAULT_QUERY = `# GraphiQL, served by this gateway from its own npm packages (no CDN).
#
# Run: Ctrl-Enter (or the ▶ button). Complete: Ctrl-Space. The schema: the Docs button, top left.
# Requests go as POST /graphql with content-type: application/json. Add credentials
# (Authorization: Bearer …) in the Headers tab below when AUTH_MODE asks for them.

{
  __typename
}
`;

/**
 * Whether a request wants a page rather than a GraphQL answer: a GET whose Accept prefers
 * `text/html` over every GraphQL response type, the rule Apollo Server uses for its landing page.
 */
export function prefersHtml(req: Request): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    req.headers.accept !== undefined &&
    req.accepts(['application/json', 'application/graphql-response+json', 'multipart/mixed', 'text/html']) === 'text/html'
  );
}

/** The page, for the GraphQL endpoint at `endpoint`. Its one inline script is allowed by hash (ideContentSecurityPolicy). */
export function graphiqlHtml(endpoint = '/graphql'): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>GraphiQL · CE-RISE DPP gateway</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="${IDE_ASSETS_PATH}/graphiql.min.css">
    <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <script src="${IDE_ASSETS_PATH}/react.production.min.js"></script>
    <script src="${IDE_ASSETS_PATH}/react-dom.production.min.js"></script>
    <script src="${IDE_ASSETS_PATH}/graphiql.min.js"></script>
    <script>${startScript(endpoint)}</script>
  </body>
</html>
`;
}

function startScript(endpoint: string): string {
  return `
      const endpoint = ${scriptJson(endpoint)};
      // POST with content-type application/json: GraphQL over HTTP, and past CSRF prevention.
      async function fetcher(params, options) {
        const headers = new Headers(options && options.headers ? options.headers : {});
        headers.set('content-type', 'application/json');
        headers.set('accept', 'application/graphql-response+json, application/json');
        const response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(params), credentials: 'same-origin' });
        const text = await response.text();
        try {
          return JSON.parse(text);
        } catch {
          return { errors: [{ message: 'HTTP ' + response.status + ': ' + text }] };
        }
      }
      ReactDOM.createRoot(document.getElementById('graphiql')).render(
        React.createElement(GraphiQL, {
          fetcher,
          defaultQuery: ${scriptJson(DEFAULT_QUERY)},
          defaultHeaders: ${scriptJson(JSON.stringify(IDE_DEFAULT_HEADERS, null, 2))},
          defaultEditorToolsVisibility: 'headers',
          shouldPersistHeaders: false,
        }),
      );
    `;
}

/**
 * Everything the page may load comes from this origin (data: for the CSS's inlined fonts and icons);
 * the inline start script is allowed by its hash only. A CDN reference would be refused by the browser.
 */
export function ideContentSecurityPolicy(endpoint = '/graphql'): string {
  const hash = createHash('sha256').update(startScript(endpoint)).digest('base64');
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    // GraphiQL's components add style elements and attributes at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * `GET /graphql` from a browser and `GET /ide/<asset>`, mounted before `/graphql`'s GraphQL
 * handling: a GET carrying a query string but asking for JSON still goes to Apollo Server, and an
 * unknown asset falls through to the port's JSON 404.
 */
export function graphiqlRoutes(endpoint = '/graphql'): Router {
  const html = graphiqlHtml(endpoint);
  const policy = ideContentSecurityPolicy(endpoint);
  const router = express.Router();
  router.get(endpoint, (req, res, next) => {
    if (!prefersHtml(req)) return next();
    res.status(200).set({ 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' }).send(html);
  });
  router.get(`${IDE_ASSETS_PATH}/:file`, (req, res, next) => {
    const file = req.params.file;
    if (typeof file !== 'string' || !Object.hasOwn(IDE_ASSETS, file)) return next();
    res.set('x-content-type-options', 'nosniff');
    // An error after the headers went out is a client that left; nothing more to say to it.
    res.sendFile(IDE_ASSETS[file]!, { maxAge: '1h' }, (error) => {
      if (error && !res.headersSent) next();
    });
  });
  return router;
}

/** With the IDE off: a browser's `GET /graphql` is a JSON 404 saying how to turn it on, not a page. */
export function noGraphiql(endpoint = '/graphql'): Router {
  const router = express.Router();
  router.get(endpoint, (req, res, next) => {
    if (!prefersHtml(req)) return next();
    const { status, headers, body } = graphqlRefusal(
      new DomainError('NOT_FOUND', `no IDE here: GRAPHQL_IDE=true serves GraphiQL at ${endpoint}; send GraphQL requests as POST with content-type: application/json`),
    );
    res.status(status).set(headers).json(body);
  });
  return router;
}

/** JSON that cannot end the script element or open a comment inside it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
