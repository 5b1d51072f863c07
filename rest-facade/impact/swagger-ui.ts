import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * `GET /docs` (DECISIONS section 6): Swagger UI served entirely from the installed `swagger-ui-dist`
 * package, so the page works with no internet access. The facade serves the page at `/docs` and the
 * files of SWAGGER_UI_ASSETS from their directory under the page's asset path.
 */
export const SWAGGER_UI_ASSETS = {
  /** The installed package directory (swagger-ui-dist has no `exports` map, so this resolves). */
  directory: path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')),
  /**
   * The only files the page needs. Serve these rather than the whole directory: its own
   * `index.html`/`swagger-initializer.js` point at the public petstore demo.
   */
  files: ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png'],
} as const;

export interface SwaggerUiPage {
  title: string;
  /** Where the page fetches the OpenAPI document. */
  openapiUrl?: string;
  /** URL path under which the facade serves SWAGGER_UI_ASSETS.files. */
  assetsPath?: string;
}

/**
 * The HTML of the page. Its one inline script starts Swagger UI: a facade sending a
 * Content-Security-Policy must allow it (e.g. by hash) or move it to a served file.
 */
export function swaggerUiHtml({ title, openapiUrl = '/openapi.json', assetsPath = '/docs/assets' }: SwaggerUiPage): string {
  const asset = (file: string) => escapeHtml(`${assetsPath}/${file}`);
  // validatorUrl null: the default sends the document to validator.swagger.io.
  const options = { url: openapiUrl, dom_id: '#swagger-ui', deepLinking: true, layout: 'StandaloneLayout', validatorUrl: null };
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>${escapeHtml(title)}</title>
    <link rel="stylesheet" type="text/css" href="${asset('swagger-ui.css')}">
    <link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}" sizes="32x32">
    <link rel="icon" type="image/png" href="${asset('favicon-16x16.png')}" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${asset('swagger-ui-bundle.js')}" charset="UTF-8"></script>
    <script src="${asset('swagger-ui-standalone-preset.js')}" charset="UTF-8"></script>
    <script>
      window.ui = SwaggerUIBundle(Object.assign(${scriptJson(options)}, {
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        plugins: [SwaggerUIBundle.plugins.DownloadUrl],
      }));
    </script>
  </body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** JSON that cannot end the script element or open a comment inside it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}
