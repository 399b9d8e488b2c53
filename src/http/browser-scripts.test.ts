import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { BROWSER_SCRIPTS, browserScriptRoutes, pageDataTag, scriptTag } from './browser-scripts.ts';
import { ApiError, errorResponse } from './errors.ts';
import { securityHeaders } from './security-headers.ts';

function app(): Hono {
  const server = new Hono();
  server.onError((error, c) => errorResponse(c, error instanceof ApiError ? error : new ApiError(500, error.message)));
  server.use('*', securityHeaders());
  server.route('/', browserScriptRoutes());
  return server;
}

describe('the pages’ browser scripts', () => {
  it('lists exactly the .js files of browser/', () => {
    const folder = fileURLToPath(new URL('../../browser/', import.meta.url));
    const files = readdirSync(folder).filter((f) => f.endsWith('.js'));
    expect([...BROWSER_SCRIPTS].sort()).toEqual(files.sort());
  });

  it.each(BROWSER_SCRIPTS)('serves %s as JavaScript with the security headers and a revalidating cache', async (name) => {
    const res = await app().request(`/assets/js/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toContain('// @ts-check');
  });

  it('answers 304 to the ETag it gave, and 404 to a file that is not a page script', async () => {
    const first = await app().request('/assets/js/search.js');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await app().request('/assets/js/search.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await app().request('/assets/js/tsconfig.json')).status).toBe(404);
    expect((await app().request('/assets/js/..%2Fpackage.json')).status).toBe(404);
  });

  it('passes page data as inert JSON that no value can break out of', () => {
    const tag = pageDataTag({ name: '</script><script>alert(1)</script>', text: '<!-- & \u2028' });
    expect(tag.match(/<\/script>/g)).toHaveLength(1);
    expect(tag).not.toContain('<!--');
    expect(tag).toMatch(/^<script type="application\/json" id="page-data">/);
    expect(scriptTag('play.js')).toBe('<script type="module" src="/assets/js/play.js"></script>');
  });
});
