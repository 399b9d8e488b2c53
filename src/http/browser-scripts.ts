import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { cached } from '../shared/index.ts';
import { ApiError } from './errors.ts';

/*
 * The pages' browser code: plain ES modules in `browser/` at the package root (linted by Biome,
 * type-checked by `tsc -p browser`), served as they are, no build step. `browser/` sits beside
 * `src/` and `dist/`, so the same relative URL finds it under tsx and from the built package.
 */

/** Where the page scripts are served. */
export const BROWSER_SCRIPTS_PATH = '/assets/js';

/** Every file in `browser/` a page may load (a module imports its siblings by these names). */
export const BROWSER_SCRIPTS = [
  'admin-client.js',
  'deliveries.js',
  'discrepancies.js',
  'docs.js',
  'page-data.js',
  'play.js',
  'requests.js',
  'search.js',
] as const;
export type BrowserScript = (typeof BROWSER_SCRIPTS)[number];

const FOLDER = new URL('../../browser/', import.meta.url);

/** The `<script>` of a page's entry module; the security headers give it the response's nonce. */
export function scriptTag(name: BrowserScript): string {
  return `<script type="module" src="${BROWSER_SCRIPTS_PATH}/${name}"></script>`;
}

/**
 * The data a page script reads (`pageData()` in `browser/page-data.js`): JSON in a non-executed
 * `<script type="application/json">` block, escaped so no value can close the element.
 */
export function pageDataTag(data: unknown): string {
  return `<script type="application/json" id="page-data">${scriptJson(data)}</script>`;
}

/** JSON that is safe inside a <script> element (no `</script>`, no HTML comment openers). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

interface LoadedScript {
  text: string;
  etag: string;
}

const loaded = new Map<string, LoadedScript>();

/** Read once per process: the files do not change under a running server. */
function load(name: BrowserScript): LoadedScript {
  return cached(loaded, name, () => {
    const text = readFileSync(new URL(name, FOLDER), 'utf8');
    return { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"` };
  });
}

/**
 * GET /assets/js/:file. `no-cache` with an ETag: the browser asks again on every page load and
 * gets a 304 while the file is the same, so a new version is never hidden behind a stale copy.
 */
export function browserScriptRoutes(): Hono {
  const app = new Hono();
  app.get(`${BROWSER_SCRIPTS_PATH}/:file`, (c) => {
    const file = c.req.param('file');
    if (!(BROWSER_SCRIPTS as readonly string[]).includes(file))
      throw new ApiError(404, `No script ${JSON.stringify(file)}; expected one of ${BROWSER_SCRIPTS.join(', ')}.`);
    const { text, etag } = load(file as BrowserScript);
    c.header('ETag', etag);
    c.header('Cache-Control', 'no-cache');
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(text);
  });
  return app;
}

/** The admin-token prompt (browser/admin-client.js drives it): the admin pages' and the play page's; hidden until a token is needed. */
export const AUTH_PROMPT_HTML = `<section id="auth" class="panel banner bad" hidden data-testid="auth-prompt">
<p id="auth-message" data-testid="auth-message"></p>
<form id="auth-form" class="toolbar"><input id="auth-token" type="password" placeholder="admin token" aria-label="Admin token" autocomplete="off" data-testid="auth-token">
<button type="submit">Use token</button></form></section>`;
