import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { html, raw } from 'hono/html';
import { pageDataTag, scriptTag } from '../http/browser-scripts.ts';
import { ApiError } from '../http/errors.ts';
import { cached } from '../shared/index.ts';
import { swaggerUiFolder } from './swagger-ui.ts';

/*
 * Swagger UI at /docs, its script and stylesheet served from the copy the package ships (see
 * swagger-ui.ts), so the page works with no network at all (a CDN copy stays blank offline).
 */

export const DOCS_ASSETS_PATH = '/docs/assets';

/** The files the page loads, name → content type. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const cache = new Map<string, string>();

/** Read on first request (the bundle is 1.5 MB): start-up does not pay for a page few open. */
function asset(file: string): string {
  return cached(cache, file, () => readFileSync(join(swaggerUiFolder(), file), 'utf8'));
}

/** GET /docs and its assets. `openApiUrl` is the document the page renders. */
export function docsRoutes(openApiUrl: string, title: string): Hono {
  const app = new Hono();
  app.get('/docs', (c) =>
    c.html(html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
    ${raw(pageDataTag({ url: openApiUrl }))}
    ${raw(scriptTag('docs.js'))}
  </body>
</html>`),
  );
  app.get(`${DOCS_ASSETS_PATH}/:file`, (c) => {
    const file = c.req.param('file');
    // Own keys only: `constructor` or `toString` must be a 404, not a file name.
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type)
      throw new ApiError(404, `No docs asset ${JSON.stringify(file)}; expected one of ${Object.keys(ASSETS).join(', ')}.`);
    c.header('Content-Type', type);
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(asset(file));
  });
  return app;
}
